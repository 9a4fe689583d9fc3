/* h5read.c -- a --save-to file read back (stn_rt.h, "snapshot files, read back"; docs/snapshots.md): the
 * file opened read-only, a field's steps (its dimension scale FIELD_step) and one snapshot at a time read
 * into the caller's buffer.  Without libhdf5 every call fails with -ENOTSUP. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_hdf5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef STN_HAVE_HDF5
#include <hdf5.h>

struct stn_snapshots {
    hid_t file;
    char path[4096];
};

/* A saved field's dataset (its attribute "every" marks a field's snapshots, not a record's): its dims
 * (snapshots first, then z, y, x as in C order), rank and element bytes. */
typedef struct field_ds {
    hid_t ds;
    hsize_t dims[4];
    int rank, elem;
} field_ds;

/* Open `field`'s dataset into f (closed by the caller with H5Dclose(f->ds)); -ENOENT when the file holds
 * none of that name. */
static int field_open(const stn_snapshots *s, const char *field, field_ds *f) {
    if (!s || !field || !*field || strchr(field, '/'))
        return stn_error(-EINVAL, "snapshots: %s", !s ? "no file (NULL)" : "a field name is needed");
    f->ds = H5Lexists(s->file, field, H5P_DEFAULT) > 0 ? H5Dopen2(s->file, field, H5P_DEFAULT) : -1;
    if (f->ds < 0 || H5Aexists(f->ds, "every") <= 0) {
        if (f->ds >= 0)
            H5Dclose(f->ds);
        H5Eclear2(H5E_DEFAULT);
        return stn_error(-ENOENT, "%s: no snapshots of a field '%s' in it", s->path, field);
    }
    hid_t sp = H5Dget_space(f->ds), t = H5Dget_type(f->ds);
    f->rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    f->elem = t >= 0 ? (int)H5Tget_size(t) : 0;
    int bad = f->rank < 2 || f->rank > 4 || H5Sget_simple_extent_dims(sp, f->dims, NULL) < 0;
    if (t >= 0)
        H5Tclose(t);
    H5Sclose(sp);
    if (bad) {
        H5Dclose(f->ds);
        return stn_error(-EINVAL, "%s: dataset '%s' is not a field's snapshots (rank %d)", s->path, field,
                         f->rank);
    }
    return 0;
}

/* The cells of one snapshot along x, y, z (1 along an axis the grid lacks). */
static void field_shape(const field_ds *f, int64_t shape[3]) {
    for (int a = 0; a < 3; a++)
        shape[a] = a < f->rank - 1 ? (int64_t)f->dims[f->rank - 1 - a] : 1;
}

/* Every step saved of `field` (its dimension scale FIELD_step, count entries) into steps. */
static int field_steps(const stn_snapshots *s, const char *field, int64_t count, int64_t *steps) {
    char name[512];
    snprintf(name, sizeof name, "%s_step", field);
    hid_t ds = H5Lexists(s->file, name, H5P_DEFAULT) > 0 ? H5Dopen2(s->file, name, H5P_DEFAULT) : -1;
    int bad =
        ds < 0 || (count > 0 && H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps) < 0);
    if (ds >= 0)
        H5Dclose(ds);
    H5Eclear2(H5E_DEFAULT);
    return bad ? stn_error(-EINVAL, "%s: the steps of '%s' (dataset %s) could not be read", s->path, field,
                           name)
               : 0;
}

int stn_snapshots_open(const char *path, stn_snapshots **snaps) {
    struct stat sb;
    if (!snaps)
        return stn_error(-EINVAL, "stn_snapshots_open: nowhere to put the handle (NULL)");
    *snaps = NULL;
    if (!path || !*path)
        return stn_error(-EINVAL, "stn_snapshots_open: a file name is needed");
    if (stat(path, &sb) != 0)
        return stn_error(-errno, "%s: %s", path, strerror(errno));
    if (strlen(path) >= sizeof((stn_snapshots *)0)->path)
        return stn_error(-ENAMETOOLONG, "%s: the path is too long", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* (no libhdf5 traces on stderr: the message says it) */
#if H5_VERSION_GE(1, 12, 0)
    htri_t is_h5 = H5Fis_accessible(path, H5P_DEFAULT);
#else
    htri_t is_h5 = H5Fis_hdf5(path);
#endif
    if (is_h5 <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return stn_error(-EINVAL, "%s: not an HDF5 file (%lld bytes)", path, (long long)sb.st_size);
    }
    stn_snapshots *s = calloc(1, sizeof *s);
    if (!s)
        return stn_error(-ENOMEM, "%s: no memory for the handle", path);
    snprintf(s->path, sizeof s->path, "%s", path);
    stn_h5_start();
    s->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int complete = 0;
    if (s->file >= 0 && H5Aexists(s->file, "complete") > 0) {
        hid_t a = H5Aopen(s->file, "complete", H5P_DEFAULT);
        if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &complete) < 0)
            complete = 0;
        if (a >= 0)
            H5Aclose(a);
    }
    H5Eclear2(H5E_DEFAULT);
    if (s->file < 0 || complete != 1) {
        int opened = s->file >= 0;
        stn_snapshots_close(s);
        return stn_error(opened ? -EINVAL : -EIO, "%s: %s", path,
                         opened
                             ? "not the complete snapshots of a run (no attribute 'complete': the run that "
                               "wrote it failed or was killed, or another program made it)"
                             : "libhdf5 could not open it");
    }
    *snaps = s;
    return 0;
}

int64_t stn_snapshots_count(const stn_snapshots *snaps, const char *field) {
    field_ds f;
    int rc = field_open(snaps, field, &f);
    if (rc)
        return rc;
    H5Dclose(f.ds);
    return (int64_t)f.dims[0];
}

int stn_snapshots_steps(const stn_snapshots *snaps, const char *field, int64_t *steps, int64_t n) {
    int64_t count = stn_snapshots_count(snaps, field);
    if (count < 0)
        return (int)count;
    if (n < 0 || (n > 0 && !steps))
        return stn_error(-EINVAL, "%s: steps of '%s': a buffer of %" PRId64 " steps", snaps->path, field, n);
    if (n >= count) /* (the whole list fits: read into the caller's buffer) */
        return field_steps(snaps, field, count, steps);
    int64_t *all = malloc((size_t)count * sizeof *all);
    if (!all)
        return stn_error(-ENOMEM, "%s: no memory for the steps of '%s'", snaps->path, field);
    int rc = field_steps(snaps, field, count, all);
    if (rc == 0)
        memcpy(steps, all, (size_t)n * sizeof *all);
    free(all);
    return rc;
}

int stn_snapshots_shape(const stn_snapshots *snaps, const char *field, int64_t shape[3], int *elem_size) {
    field_ds f;
    int rc = field_open(snaps, field, &f);
    if (rc)
        return rc;
    H5Dclose(f.ds);
    field_shape(&f, shape);
    if (elem_size)
        *elem_size = f.elem;
    return 0;
}

/* The index of `step` among f's count snapshots, or -ENOENT (the message says which). */
static int64_t snapshot_index(const stn_snapshots *s, const char *field, const field_ds *f, int64_t step) {
    const int64_t count = (int64_t)f->dims[0];
    int64_t *steps = malloc((size_t)(count > 0 ? count : 1) * sizeof *steps), i = 0;
    if (!steps)
        return stn_error(-ENOMEM, "%s: no memory for the steps of '%s'", s->path, field);
    int rc = field_steps(s, field, count, steps);
    while (rc == 0 && i < count && steps[i] != step)
        i++;
    free(steps);
    if (rc == 0 && i == count)
        rc = stn_error(-ENOENT, "%s: step %" PRId64 " of '%s' was not saved (%" PRId64 " snapshots)", s->path,
                       step, field, count);
    return rc ? rc : i;
}

int stn_snapshots_read(const stn_snapshots *snaps, const char *field, int64_t step, void *buf,
                       uint64_t bytes) {
    field_ds f;
    int64_t shape[3];
    int rc = field_open(snaps, field, &f);
    if (rc)
        return rc;
    int64_t i = snapshot_index(snaps, field, &f, step);
    field_shape(&f, shape);
    const uint64_t want = (uint64_t)shape[0] * (uint64_t)shape[1] * (uint64_t)shape[2] * (uint64_t)f.elem;
    if (i >= 0 && (!buf || bytes != want))
        i = stn_error(-EINVAL,
                      "%s: a snapshot of '%s' is %" PRIu64 " bytes (%" PRId64 "x%" PRId64 "x%" PRId64
                      " of %d); the buffer is %" PRIu64,
                      snaps->path, field, want, shape[0], shape[1], shape[2], f.elem, buf ? bytes : 0);
    if (i < 0) {
        H5Dclose(f.ds);
        return (int)i;
    }
    hsize_t start[4] = {(hsize_t)i, 0, 0, 0}, cnt[4];
    memcpy(cnt, f.dims, sizeof cnt);
    cnt[0] = 1;
    hid_t fs = H5Dget_space(f.ds), ms = H5Screate_simple(f.rank, cnt, NULL);
    int bad = fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
              H5Dread(f.ds, f.elem == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf) < 0;
    H5Sclose(ms), H5Sclose(fs), H5Dclose(f.ds);
    H5Eclear2(H5E_DEFAULT);
    return bad ? stn_error(-EIO, "%s: reading snapshot %" PRId64 " (step %" PRId64 ") of '%s' failed",
                           snaps->path, i, step, field)
               : 0;
}

void stn_snapshots_close(stn_snapshots *snaps) {
    if (!snaps)
        return;
    if (snaps->file >= 0)
        stn_h5_fclose(snaps->file);
    free(snaps);
}

#else /* no libhdf5 */

static int no_hdf5(void) {
    return stn_error(-ENOTSUP,
                     "snapshot files: this runtime was built without libhdf5 (Debian: apt-get install "
                     "libhdf5-dev, then build again)");
}
int stn_snapshots_open(const char *path, stn_snapshots **snaps) {
    (void)path;
    if (snaps)
        *snaps = NULL;
    return no_hdf5();
}
int64_t stn_snapshots_count(const stn_snapshots *snaps, const char *field) {
    return (void)snaps, (void)field, no_hdf5();
}
int stn_snapshots_steps(const stn_snapshots *snaps, const char *field, int64_t *steps, int64_t n) {
    return (void)snaps, (void)field, (void)steps, (void)n, no_hdf5();
}
int stn_snapshots_shape(const stn_snapshots *snaps, const char *field, int64_t shape[3], int *elem_size) {
    return (void)snaps, (void)field, (void)shape, (void)elem_size, no_hdf5();
}
int stn_snapshots_read(const stn_snapshots *snaps, const char *field, int64_t step, void *buf,
                       uint64_t bytes) {
    return (void)snaps, (void)field, (void)step, (void)buf, (void)bytes, no_hdf5();
}
void stn_snapshots_close(stn_snapshots *snaps) { (void)snaps; }

#endif
