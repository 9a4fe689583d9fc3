/* ooc_state.c -- the out-of-core engine's state file, `NAME.ooc-state` under --dir: after every
 * sweep it is committed atomically (written beside, fsynced, renamed) with the number of sweeps
 * whose results are in the scratch files and a fingerprint of everything that decides their
 * content.  --resume continues after the last committed sweep, and only with the same
 * fingerprint. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Everything that decides the content of the scratch files: a resumed run must match it. */
static uint64_t fingerprint(const ooc *e) {
    const stn_opts *o = e->r->o;
    uint64_t h = STN_FNV_BASIS;
    h = stn_fnv(h, e->d->name, strlen(e->d->name));
    h = stn_fnv(h, o->size, sizeof o->size);
    h = stn_fnv(h, &o->steps, sizeof o->steps);
    h = stn_fnv(h, &e->plan.r.b, sizeof e->plan.r.b);
    h = stn_fnv(h, &e->plan.q.b, sizeof e->plan.q.b);
    h = stn_fnv(h, &e->plan.strip, sizeof e->plan.strip);
    h = stn_fnv(h, &e->plan.bt, sizeof e->plan.bt);
    h = stn_fnv(h, &e->plan.row_bytes, sizeof e->plan.row_bytes);
    h = stn_fnv(h, o->params, sizeof(double) * (size_t)e->d->nparams);
    int nf = 2 * e->d->nfields, ns = e->d->nseries, np = e->d->npointsets;
    for (int s = 0; s < nf + ns + np + e->d->nalong; s++) { /* every input file */
        const char *p = s < nf             ? o->init_path[s]
                        : s < nf + ns      ? o->series_path[s - nf]
                        : s < nf + ns + np ? o->points_path[s - nf - ns]
                                           : o->along_path[s - nf - ns - np];
        struct stat sb;
        if (p && stat(p, &sb) == 0) {
            h = stn_fnv(h, p, strlen(p));
            h = stn_fnv(h, &sb.st_size, sizeof sb.st_size);
            h = stn_fnv(h, &sb.st_mtim, sizeof sb.st_mtim);
        }
    }
    return h;
}

int stn_ooc_save_state(ooc *e, int64_t sweeps_done) {
    char text[256];
    const int64_t *b = e->out->blk; /* the plan's by, bz, bt (bz -1 in 2d, where bz = by) */
    int64_t now[3];                 /* re-planned (ooc_refine.c; never a folded grid): the blocks now */
    if (e->res->nreplans > 0) {
        now[0] = e->plan.r.axis == 1 ? e->plan.r.b : e->r->o->size[1];
        now[1] = e->d->ndim == 2 ? -1 : e->plan.r.axis == 2 ? e->plan.r.b : e->plan.q.b;
        now[2] = e->plan.bt;
        b = now;
    }
    /* version 3: and the steps done, which a simulation's sweeps of uneven length need (the sweep just
     * done ends at steps_before + T); version 4: and each file set's chunks along y (ooc_chunks.c) */
    int n = snprintf(text, sizeof text,
                     "stencilc-ooc-state 4\nfingerprint %016" PRIx64 "\nsweeps_done %" PRId64
                     "\nplan %" PRId64 " %" PRId64 " %" PRId64 " %d\nsteps_done %" PRId64 "\n",
                     fingerprint(e), sweeps_done, b[0], e->d->ndim == 2 ? b[0] : b[1], b[2], e->plan.strip,
                     e->steps_before + e->T);
    char *chunks = NULL, dirs[8192];
    int rc = stn_ooc_chunk_text(e, &chunks);
    if (rc == 0 && (rc = stn_ooc_dirs_text(e, dirs, sizeof dirs)) != 0) /* (--dir a,b only) */
        free(chunks);
    if (rc)
        return rc;
    stn_afile af;
    rc = stn_afile_open(&af, e->fs.state, 0);
    if (rc == 0) {
        rc = stn_afile_write(&af, text, (size_t)n);
        rc = rc ? rc : stn_afile_write(&af, chunks, strlen(chunks));
        rc = rc || !dirs[0] ? rc : stn_afile_write(&af, dirs, strlen(dirs));
        rc = rc ? (stn_afile_abort(&af), rc) : stn_afile_commit(&af);
    }
    free(chunks);
    return rc ? stn_error(rc, "cannot save the run's state '%s': %s", e->fs.state, stn_errmsg()) : 0;
}

/* Read a state file: version 1 (no plan: the tuner chose it again, by bytes alone), 2 (the plan), 3
 * (and the steps done; before it, sweeps x bt) or 4 (and the chunk tables, into e when e is not NULL;
 * before it, every file plain).  1 when read (sv->bt 0 without a plan; *steps -1 without the steps), 0
 * when there is none, or -EINVAL. */
static int read_state(const char *path, uint64_t *fp_hash, long long *done, stn_saved_plan *sv,
                      long long *steps, ooc *e) {
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    int version = 0, strip = -1;
    long long n = -1, by = 0, bz = 0, bt = 0, t = -1;
    int ok = fscanf(fp, "stencilc-ooc-state %d\nfingerprint %" SCNx64 "\nsweeps_done %lld", &version, fp_hash,
                    &n) == 3;
    if (ok && version >= 2)
        ok = fscanf(fp, "\nplan %lld %lld %lld %d", &by, &bz, &bt, &strip) == 4 && by > 0 && bz > 0 &&
             bt > 0 && strip >= STN_STRIP_NONE && strip <= STN_STRIP_FILE;
    if (ok && version >= 3)
        ok = fscanf(fp, "\nsteps_done %lld", &t) == 1 && t >= 0;
    if (ok && version >= 4 && e)
        ok = stn_ooc_chunk_parse(e, fp) == 0;
    int dirs = ok && e ? stn_ooc_dirs_check(e, fp) : 0; /* (the --dir list the files were written in) */
    fclose(fp);
    if (!ok || n < 0 || version < 1 || version > 4)
        return stn_error(-EINVAL, "--resume: '%s' is not a state file this program wrote", path);
    if (dirs)
        return dirs;
    *done = n;
    *steps = t;
    *sv = (stn_saved_plan){by, bz, version >= 2 ? bt : 0, strip};
    return 1;
}

int stn_ooc_saved_plan(const char *path, stn_saved_plan *sv) {
    uint64_t h;
    long long n, t;
    int rc = read_state(path, &h, &n, sv, &t, NULL);
    return rc < 0 ? rc : rc == 1 && sv->bt > 0;
}

int stn_ooc_load_state(ooc *e, int64_t *done, int64_t *steps) {
    *done = *steps = -1;
    uint64_t fp_hash = 0;
    long long n = -1, t = -1;
    stn_saved_plan sv;
    int rc = read_state(e->fs.state, &fp_hash, &n, &sv, &t, e);
    if (rc <= 0)
        return rc;
    if (fp_hash != fingerprint(e))
        return stn_error(
            -EINVAL,
            "--resume: the run saved in '%s' had other parameters (size, steps, block, params or "
            "--init files differ); run without --resume to start over",
            e->fs.state);
    *done = n;
    *steps = t >= 0 ? t : n * e->plan.bt;
    return 0;
}
