/* h5files.c -- the HDF5 datasets among a run's --init and --out (io/h5data.c; docs/cli.md).
 *
 * `--init NAME=FILE.h5:/DSET[I]`: before anything else looks at the inputs, the dataset is read into a
 * temporary .npy (in --dir, else $TMPDIR or /tmp), which the run then reads as any --init; the temporary
 * is removed when the run ends.  `--out NAME=FILE.h5:/DSET`: the engine writes a hidden .npy beside FILE
 * (.BASE.DSET.out-PID.npy, itself a temporary until whole); once every output is synced, and before the
 * report, it is copied into the dataset of FILE's temporary (outputs into one FILE share it), which is
 * renamed into place with the other outputs; the hidden .npy is never renamed and is removed.  A run that
 * fails leaves neither.  One process only (MPI ranks > 1 are refused). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_hdf5.h"
#include "program/stn_program.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Index s (a field's level: 2 f + prev) for its --init, n + s for its --out. */
struct stn_h5files {
    int n;              /* 2 x nfields */
    const char **given; /* [2n]: the --init or --out as given (NULL: not a dataset) */
    char **tmp;         /* [2n]: the .npy each is read from (--init) or written to (--out) */
    stn_h5_out **file;  /* [2n]: the file an output's dataset goes into, at its first output */
};

/* The grid's .npy shape, slowest first (as stn_npy_shape: runfiles.c calls this file). */
static int64_t *grid_shape(const stn_run *r, int64_t shape[3]) {
    shape[0] = r->o->size[2], shape[1] = r->o->size[1], shape[2] = r->o->size[0];
    return shape + 3 - stn_dims(r->d);
}

static const char *level_name(const stn_run *r, int s, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", r->d->fields[s / 2].name, s % 2 ? ".prev" : "");
    return buf;
}

static int alloc_files(stn_run *r) {
    struct stn_h5files *h = calloc(1, sizeof *h);
    int n = 2 * r->d->nfields;
    if (h) {
        h->n = n;
        h->given = calloc(2 * (size_t)n, sizeof *h->given);
        h->tmp = calloc(2 * (size_t)n, sizeof *h->tmp);
        h->file = calloc(2 * (size_t)n, sizeof *h->file);
    }
    r->h5files = h;
    if (!h || !h->given || !h->tmp || !h->file)
        return stn_error(-ENOMEM, "out of memory");
    return 0;
}

/* An output's file against the run's inputs, the snapshot file and the report. */
static int check_out(const stn_run *r, const char *arg, const stn_h5_ref *ref) {
    stn_h5_ref in;
    const struct stn_h5files *h = r->h5files;
    for (int j = 0; j < 2 * r->d->nfields; j++) {
        const char *p = h->given[j] ? h->given[j] : r->o->init_path[j]; /* (as given, not its .npy) */
        if (p &&
            (stn_h5_ref_parse(p, &in) == 1 ? stn_same_file(in.file, ref->file) : stn_same_file(p, ref->file)))
            return stn_error(-EINVAL,
                             "--out %s: %s is an --init file (%s); input files are never overwritten", arg,
                             ref->file, p);
    }
    if (r->o->save_to && stn_same_file(r->o->save_to, ref->file))
        return stn_error(-EINVAL, "--out %s: %s is also the --save-to file; choose another file", arg,
                         ref->file);
    if (r->o->report && stn_same_file(r->o->report, ref->file))
        return stn_error(-EINVAL, "--out %s: %s is also the --report file", arg, ref->file);
    return 0;
}

static int tmp_dir(const stn_run *r, char *buf, size_t n) {
    const char *d = r->o->dir ? r->o->dir : getenv("TMPDIR");
    snprintf(buf, n, "%s", d && *d ? d : "/tmp");
    return 0;
}

/* One --init dataset into its temporary .npy; init_path then names the temporary. */
static int input(stn_run *r, int s, const char *arg, stn_stats *st) {
    struct stn_h5files *h = r->h5files;
    char dir[4096], name[64];
    int64_t shape[3], *sh = grid_shape(r, shape);
    tmp_dir(r, dir, sizeof dir);
    if (asprintf(&h->tmp[s], "%s/.stencilc-init-%ld-%s.npy", dir, (long)getpid(),
                 level_name(r, s, name, sizeof name)) < 0) {
        h->tmp[s] = NULL;
        return stn_error(-ENOMEM, "out of memory");
    }
    int rc = stn_h5_extract(arg, r->d->npy_descr, stn_dims(r->d), sh, h->tmp[s], st);
    if (rc)
        return stn_error(rc, "--init %s=%s", level_name(r, s, name, sizeof name), stn_errmsg());
    h->given[s] = arg;
    r->o->init_path[s] = h->tmp[s];
    return 0;
}

/* One --out dataset: out_path then names the hidden .npy the engine writes. */
static int output(stn_run *r, int s, const char *path, const stn_h5_ref *ref) {
    struct stn_h5files *h = r->h5files;
    char name[64], arg[4200];
    snprintf(arg, sizeof arg, "%s=%s", level_name(r, s, name, sizeof name), path);
    int rc = check_out(r, arg, ref), t = h->n + s;
    for (int j = 0; rc == 0 && j < s; j++) {
        stn_h5_ref o;
        if (h->given[h->n + j] && stn_h5_ref_parse(h->given[h->n + j], &o) == 1 &&
            stn_same_file(o.file, ref->file) && strcmp(o.dset, ref->dset) == 0)
            rc = stn_error(-EINVAL, "--out %s: dataset %s of %s is also the --out of %s", arg, ref->dset,
                           ref->file, level_name(r, j, name, sizeof name));
    }
    if (rc)
        return rc;
    const char *slash = strrchr(ref->file, '/');
    int dl = slash ? (int)(slash - ref->file + 1) : 0;
    if (asprintf(&h->tmp[t], "%.*s.%s.%s.out-%ld.npy", dl, ref->file, slash ? slash + 1 : ref->file,
                 level_name(r, s, name, sizeof name), (long)getpid()) < 0) {
        h->tmp[t] = NULL;
        return stn_error(-ENOMEM, "out of memory");
    }
    h->given[t] = path;
    r->o->out_path[s] = h->tmp[t];
    return 0;
}

int stn_h5files_prepare(stn_run *r, stn_stats *st) {
    stn_h5_ref ref;
    int any = 0;
    for (int s = 0; s < 2 * r->d->nfields; s++) {
        const char *p[2] = {r->o->init_path[s], r->o->out_path[s]};
        for (int k = 0; k < 2; k++) {
            int rc = p[k] ? stn_h5_ref_parse(p[k], &ref) : 0;
            char name[64];
            if (rc < 0)
                return stn_error(rc, "--%s %s=%s: %s", k ? "out" : "init",
                                 level_name(r, s, name, sizeof name), p[k], stn_errmsg());
            any |= rc;
        }
    }
    if (!any)
        return 0;
    if (stn_par_size() > 1)
        return stn_error(-ENOTSUP,
                         "HDF5 datasets as --init or --out are read and written by one process: "
                         "not under MPI with %d ranks (use .npy files)",
                         stn_par_size());
    int rc = alloc_files(r);
    for (int s = 0; rc == 0 && s < 2 * r->d->nfields; s++) {
        const char *in = r->o->init_path[s], *out = r->o->out_path[s];
        if (in && stn_h5_ref_parse(in, &ref) == 1)
            rc = input(r, s, in, st);
        if (rc == 0 && out && stn_h5_ref_parse(out, &ref) == 1)
            rc = output(r, s, out, &ref);
    }
    return rc;
}

void stn_h5files_bytes(const stn_run *r, uint64_t *rd, uint64_t *wr) {
    const struct stn_h5files *h = r->h5files;
    int64_t shape[3], *sh = grid_shape(r, shape);
    uint64_t one = stn_h5_ref_bytes(stn_dims(r->d), sh, r->d->elem_size);
    *rd = *wr = 0;
    for (int s = 0; h && s < 2 * h->n; s++)
        if (h->given[s]) /* each read once and written once more: into the .npy, or out of it */
            *rd += one, *wr += one;
}

int stn_h5files_owns(const stn_run *r, int s) {
    return r->h5files && s < r->h5files->n && r->h5files->given[r->h5files->n + s];
}

int stn_h5files_write(stn_run *r, stn_stats *st) {
    struct stn_h5files *h = r->h5files;
    int64_t shape[3], *sh = grid_shape(r, shape);
    int rc = 0;
    for (int s = 0; h && rc == 0 && s < h->n; s++) {
        stn_h5_ref ref, o;
        const char *arg = h->given[h->n + s];
        if (!arg || !r->writers[s] || stn_h5_ref_parse(arg, &ref) != 1)
            continue;
        int at = h->n + s; /* the first output into the same file holds it */
        for (int j = h->n; j < h->n + s; j++)
            if (h->given[j] && stn_h5_ref_parse(h->given[j], &o) == 1 && stn_same_file(o.file, ref.file)) {
                at = j;
                break;
            }
        if (at == h->n + s)
            rc = stn_h5_out_open(ref.file, &h->file[at]);
        if (rc == 0)
            rc = stn_h5_out_put(h->file[at], ref.dset, stn_npy_writer_tmp(r->writers[s]), r->d->npy_descr,
                                stn_dims(r->d), sh, r->o->steps, st);
        char name[64];
        if (rc)
            rc = stn_error(rc, "--out %s=%s: %s", level_name(r, s, name, sizeof name), arg, stn_errmsg());
    }
    for (int s = 0; h && rc == 0 && s < 2 * h->n; s++)
        if (h->file[s])
            rc = stn_h5_out_finish(h->file[s]);
    return rc;
}

int stn_h5files_commit(stn_run *r) {
    struct stn_h5files *h = r->h5files;
    int rc = 0;
    for (int s = 0; h && s < 2 * h->n; s++)
        if (h->file[s]) {
            int rc2 = rc == 0 ? stn_h5_out_commit(h->file[s]) : 0;
            rc = rc ? rc : rc2;
            if (rc2 == 0 && rc == 0)
                h->file[s] = NULL;
        }
    return rc;
}

void stn_h5files_free(stn_run *r) {
    struct stn_h5files *h = r->h5files;
    if (!h)
        return;
    for (int s = 0; h->given && h->tmp && h->file && s < 2 * h->n; s++) {
        stn_h5_out_abort(h->file[s]);
        if (h->given[s] && s >= h->n) {
            r->o->out_path[s - h->n] = h->given[s];
        } else if (h->given[s]) {
            unlink(h->tmp[s]); /* (the input's .npy: ours) */
            r->o->init_path[s] = h->given[s];
        }
        free(h->tmp[s]);
    }
    free(h->given), free(h->tmp), free(h->file);
    free(h);
    r->h5files = NULL;
}
