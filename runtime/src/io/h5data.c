/* h5data.c -- HDF5 datasets as a run's --init and --out (io/stn_hdf5.h; docs/cli.md, docs/snapshots.md):
 * `FILE.h5:/DSET` (a dataset of the grid's shape) or `FILE.h5:/DSET[I]` (snapshot I of a dataset whose
 * leading axis is time, I < 0 from the end), read into a .npy the engines read as any --init; and an
 * output .npy written into a dataset of a new file, made as a temporary and renamed into place only
 * when whole.  The input file is opened read-only.  Without libhdf5 every call but the parse fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_hdf5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define H5_PIECE_BYTES ((int64_t)8 << 20) /* the most bytes moved at a time */

static int ends_with(const char *s, size_t n, const char *tail) {
    size_t t = strlen(tail);
    return n >= t && strncmp(s + n - t, tail, t) == 0;
}

int stn_h5_ref_parse(const char *arg, stn_h5_ref *r) {
    memset(r, 0, sizeof *r);
    const char *at = NULL;
    for (const char *p = strstr(arg, ":/"); p; p = strstr(p + 1, ":/"))
        if (ends_with(arg, (size_t)(p - arg), ".h5") || ends_with(arg, (size_t)(p - arg), ".hdf5"))
            at = p;
    if (!at)
        return 0; /* a .npy */
    size_t nf = (size_t)(at - arg), nd = strlen(at + 1);
    const char *br = strchr(at + 1, '[');
    if (br)
        nd = (size_t)(br - at - 1);
    if (nf >= sizeof r->file || nd >= sizeof r->dset || nd < 2)
        return stn_error(-EINVAL, "expected FILE.h5:/DATASET or FILE.h5:/DATASET[INDEX]");
    memcpy(r->file, arg, nf);
    memcpy(r->dset, at + 1, nd);
    if (br) {
        char *end;
        errno = 0;
        long long v = strtoll(br + 1, &end, 10);
        if (end == br + 1 || errno || strcmp(end, "]") != 0)
            return stn_error(-EINVAL, "the index in [] must be an integer (e.g. %s:%s[-1], the last)",
                             r->file, r->dset);
        r->has_index = 1, r->index = (int64_t)v;
    }
    return 1;
}

uint64_t stn_h5_ref_bytes(int ndim, const int64_t *shape, int elem) {
    uint64_t n = (uint64_t)elem;
    for (int a = 0; a < ndim; a++)
        n *= (uint64_t)shape[a];
    return n;
}

#ifdef STN_HAVE_HDF5
#include <hdf5.h>
#include <hdf5_hl.h>

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *out) {
    if (n == 0)
        snprintf(out, 256, "%s", e->desc ? e->desc : "?");
    return 0;
}

static const char *lib_error(char *msg) {
    snprintf(msg, 256, "unknown error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, msg);
    H5Eclear2(H5E_DEFAULT);
    return msg;
}

static void shape_text(char *buf, size_t n, int ndim, const hsize_t *h, const int64_t *s) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int a = 0; a < ndim && k < n; a++)
        k += (size_t)snprintf(buf + k, n - k, a ? ", %" PRId64 : "%" PRId64, h ? (int64_t)h[a] : s[a]);
    if (k < n)
        snprintf(buf + k, n - k, ndim == 1 ? ",)" : ")");
}

/* The dataset's type and shape against the grid's: 0, or the error naming what differs. */
static int check_dataset(const char *arg, const stn_h5_ref *r, hid_t ds, int elem, int ndim,
                         const int64_t *shape, hsize_t *first) {
    hid_t t = H5Dget_type(ds), sp = H5Dget_space(ds);
    hsize_t dims[8] = {0};
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (rank > 0 && rank <= 8)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    int fl = t >= 0 && H5Tget_class(t) == H5T_FLOAT, size = t >= 0 ? (int)H5Tget_size(t) : 0;
    H5Tclose(t);
    H5Sclose(sp);
    char have[160], want[160];
    int lead = r->has_index;
    shape_text(want, sizeof want, ndim, NULL, shape);
    if (rank >= 0 && rank <= 8)
        shape_text(have, sizeof have, rank, dims, NULL);
    else
        snprintf(have, sizeof have, "(?)");
    if (!fl || size != elem)
        return stn_error(-EINVAL,
                         "%s: dataset %s in %s holds %s of %d bytes; the grid's elements are floats of %d",
                         arg, r->dset, r->file, fl ? "floats" : "no floats", size, elem);
    int same = rank == ndim + lead;
    for (int a = 0; same && a < ndim; a++)
        same = (int64_t)dims[lead + a] == shape[a];
    if (!same)
        return stn_error(-EINVAL, "%s: dataset %s in %s has the shape %s; the grid needs %s%s%s", arg,
                         r->dset, r->file, have, lead ? "(snapshots, " : "", lead ? want + 1 : want,
                         !lead && rank == ndim + 1  ? " (a dataset of snapshots: say which, e.g. [-1])"
                         : lead && rank == ndim     ? " (not a dataset of snapshots: no [index])"
                         : lead && rank == ndim + 1 ? " (snapshots saved with a stride are not the grid)"
                                                    : "");
    first[0] = 0;
    if (lead) {
        int64_t n = (int64_t)dims[0], i = r->index < 0 ? n + r->index : r->index;
        if (i < 0 || i >= n)
            return stn_error(-EINVAL,
                             "%s: index %" PRId64 " is out of range: dataset %s in %s holds %" PRId64
                             " snapshots (%" PRId64 " to %" PRId64 ")",
                             arg, r->index, r->dset, r->file, n, -n, n - 1);
        first[0] = (hsize_t)i;
    }
    return 0;
}

/* Slices [s, s + k) along the slowest grid axis of the selected dataset into buf. */
static int read_slices(hid_t ds, int lead, hsize_t t, int ndim, const int64_t *shape, int64_t s, int64_t k,
                       hid_t mt, void *buf) {
    hsize_t start[4] = {0}, count[4] = {1, 1, 1, 1};
    if (lead)
        start[0] = t;
    for (int a = 0; a < ndim; a++)
        count[lead + a] = (hsize_t)shape[a];
    start[lead] = (hsize_t)s, count[lead] = (hsize_t)k;
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(ndim + lead, count, NULL);
    int bad = fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
              H5Dread(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0;
    H5Sclose(fs);
    H5Sclose(ms);
    return bad ? -EIO : 0;
}

int stn_h5_extract(const char *arg, const char *descr, int ndim, const int64_t *shape, const char *npy_path,
                   stn_stats *st) {
    stn_h5_ref r;
    int rc = stn_h5_ref_parse(arg, &r), elem = stn_npy_elem_size(descr);
    if (rc <= 0)
        return rc ? rc : stn_error(-EINVAL, "%s: not an HDF5 dataset (FILE.h5:/DATASET)", arg);
    char msg[256];
    stn_h5_start();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int fd = stn_open_input(r.file); /* (a missing file, a FIFO: the usual message) */
    if (fd < 0)
        return stn_error(fd, "%s: %s", arg, stn_errmsg());
    close(fd);
    hid_t f = H5Fopen(r.file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return stn_error(-EINVAL, "%s: %s is not an HDF5 file libhdf5 can read: %s", arg, r.file,
                         lib_error(msg));
    hid_t ds = H5Lexists(f, r.dset, H5P_DEFAULT) > 0 ? H5Dopen2(f, r.dset, H5P_DEFAULT) : -1;
    if (ds < 0) {
        H5Eclear2(H5E_DEFAULT);
        stn_h5_fclose(f);
        return stn_error(-ENOENT, "%s: %s has no dataset %s", arg, r.file, r.dset);
    }
    hsize_t first[1];
    rc = check_dataset(arg, &r, ds, elem, ndim, shape, first);
    stn_npy_writer *w = NULL;
    if (rc == 0 && (rc = stn_npy_writer_open(npy_path, descr, ndim, shape, &w)) != 0)
        rc = stn_error(rc, "%s: %s", arg, stn_errmsg());
    uint64_t slice = stn_h5_ref_bytes(ndim - 1, shape + 1, elem);
    int64_t per = (int64_t)(H5_PIECE_BYTES / (int64_t)slice);
    per = per < 1 ? 1 : per > shape[0] ? shape[0] : per;
    void *buf = rc == 0 ? malloc((size_t)per * slice) : NULL;
    if (rc == 0 && !buf)
        rc = stn_error(-ENOMEM, "%s: out of memory", arg);
    hid_t mt = elem == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    for (int64_t s = 0; rc == 0 && s < shape[0]; s += per) {
        int64_t k = s + per <= shape[0] ? per : shape[0] - s;
        if (read_slices(ds, r.has_index, first[0], ndim, shape, s, k, mt, buf) != 0)
            rc = stn_error(-EIO, "%s: cannot read dataset %s of %s: libhdf5: %s", arg, r.dset, r.file,
                           lib_error(msg));
        st->bytes_read += rc == 0 ? (uint64_t)k * slice : 0;
        if (rc == 0)
            rc = stn_npy_writer_pwrite(w, buf, (size_t)((uint64_t)k * slice), (uint64_t)s * slice, st);
    }
    free(buf);
    H5Dclose(ds);
    stn_h5_fclose(f);
    if (rc == 0 && (rc = stn_npy_writer_finish(w)) == 0)
        rc = stn_npy_writer_commit(w);
    else
        stn_npy_writer_abort(w);
    return rc;
}

struct stn_h5_out {
    stn_afile af;
    hid_t file;
};

int stn_h5_out_open(const char *path, stn_h5_out **out) {
    *out = NULL;
    stn_h5_out *h = calloc(1, sizeof *h);
    if (!h)
        return stn_error(-ENOMEM, "out of memory");
    h->af.fd = -1, h->file = -1;
    stn_h5_start();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int rc = stn_afile_open(&h->af, path, 0);
    char msg[256];
    if (rc == 0 && (h->file = H5Fcreate(h->af.tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        rc = stn_error(-EIO, "cannot write '%s': libhdf5: %s", path, lib_error(msg));
    if (rc) {
        stn_h5_out_abort(h);
        return rc;
    }
    *out = h;
    return 0;
}

int stn_h5_out_put(stn_h5_out *h, const char *dset, const char *npy_path, const char *descr, int ndim,
                   const int64_t *shape, int64_t step, stn_stats *st) {
    int elem = stn_npy_elem_size(descr), rc = 0;
    hsize_t dims[3];
    for (int a = 0; a < ndim; a++)
        dims[a] = (hsize_t)shape[a];
    char msg[256];
    hid_t sp = H5Screate_simple(ndim, dims, NULL), lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (lcpl >= 0)
        H5Pset_create_intermediate_group(lcpl, 1);
    hid_t ds = sp >= 0 ? H5Dcreate2(h->file, dset, elem == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, sp, lcpl,
                                    H5P_DEFAULT, H5P_DEFAULT)
                       : -1;
    H5Sclose(sp);
    H5Pclose(lcpl);
    if (ds < 0)
        return stn_error(-EIO, "cannot write dataset %s into '%s': libhdf5: %s", dset, h->af.path,
                         lib_error(msg));
    uint64_t slice = stn_h5_ref_bytes(ndim - 1, shape + 1, elem);
    int64_t per = (int64_t)(H5_PIECE_BYTES / (int64_t)slice);
    per = per < 1 ? 1 : per > shape[0] ? shape[0] : per;
    void *buf = malloc((size_t)per * slice);
    if (!buf)
        rc = stn_error(-ENOMEM, "out of memory");
    hid_t mt = elem == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    for (int64_t s = 0; rc == 0 && s < shape[0]; s += per) {
        int64_t k = s + per <= shape[0] ? per : shape[0] - s;
        rc = stn_npy_load_part(npy_path, descr, ndim, shape, s, k, buf, st);
        hsize_t start[3] = {(hsize_t)s, 0, 0}, count[3];
        for (int a = 0; a < ndim; a++)
            count[a] = a ? dims[a] : (hsize_t)k;
        hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(ndim, count, NULL);
        if (rc == 0 && (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
                        H5Dwrite(ds, mt, ms, fs, H5P_DEFAULT, buf) < 0))
            rc = stn_error(-EIO, "cannot write dataset %s into '%s': libhdf5: %s", dset, h->af.path,
                           lib_error(msg));
        H5Sclose(fs);
        H5Sclose(ms);
        st->bytes_written += rc == 0 ? (uint64_t)k * slice : 0;
    }
    free(buf);
    if (rc == 0 && H5LTset_attribute_long_long(ds, ".", "step", (const long long *)&step, 1) < 0)
        rc = stn_error(-EIO, "cannot write dataset %s into '%s': libhdf5: %s", dset, h->af.path,
                       lib_error(msg));
    H5Dclose(ds);
    return rc;
}

int stn_h5_out_finish(stn_h5_out *h) {
    long long one = 1;
    char msg[256];
    int rc = H5LTset_attribute_long_long(h->file, "/", "complete", &one, 1) < 0 ? -EIO : 0;
    if (stn_h5_fclose(h->file) < 0)
        rc = -EIO;
    h->file = -1;
    if (rc)
        return stn_error(rc, "cannot write '%s': libhdf5: %s", h->af.path, lib_error(msg));
    if ((rc = stn_afile_sync(&h->af)) != 0)
        return stn_error(rc, "cannot write '%s': %s", h->af.path, stn_errmsg());
    return 0;
}

int stn_h5_out_commit(stn_h5_out *h) {
    int rc = stn_afile_commit(&h->af);
    if (rc)
        rc = stn_error(rc, "cannot write '%s': %s", h->af.path, stn_errmsg());
    stn_h5_out_abort(h);
    return rc;
}

void stn_h5_out_abort(stn_h5_out *h) {
    if (!h)
        return;
    if (h->file >= 0)
        stn_h5_fclose(h->file);
    stn_afile_abort(&h->af);
    free(h);
}

#else /* no libhdf5 */

struct stn_h5_out {
    int unused;
};

static int no_hdf5(const char *what) {
    return stn_error(
        -ENOTSUP, "%s: this program was built without HDF5 (install libhdf5-dev and build it again)", what);
}

int stn_h5_extract(const char *arg, const char *descr, int ndim, const int64_t *shape, const char *npy_path,
                   stn_stats *st) {
    return (void)descr, (void)ndim, (void)shape, (void)npy_path, (void)st, no_hdf5(arg);
}
int stn_h5_out_open(const char *path, stn_h5_out **h) { return *h = NULL, no_hdf5(path); }
int stn_h5_out_put(stn_h5_out *h, const char *dset, const char *npy_path, const char *descr, int ndim,
                   const int64_t *shape, int64_t step, stn_stats *st) {
    return (void)h, (void)npy_path, (void)descr, (void)ndim, (void)shape, (void)step, (void)st, no_hdf5(dset);
}
int stn_h5_out_finish(stn_h5_out *h) { return (void)h, no_hdf5("--out"); }
int stn_h5_out_commit(stn_h5_out *h) { return (void)h, no_hdf5("--out"); }
void stn_h5_out_abort(stn_h5_out *h) { (void)h; }

#endif
