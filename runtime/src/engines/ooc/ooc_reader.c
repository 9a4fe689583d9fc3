/* ooc_reader.c -- the out-of-core engine's --init reader: a thread that reads the next block's rows of
 * the --init files while the kernels compute this one. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The first sweep reads --init files with pread (their rows are not aligned for O_DIRECT).  So
 * that those reads overlap the kernels as the asynchronous ones do, block j+1's are made by a
 * thread of their own while block j computes, into ring slices no one else touches until
 * enter_block(j+1) joins it.  The thread touches nothing of the engine but those rows. */
typedef struct ooc_reader {
    pthread_t th;
    ooc *e;
    int64_t sweep, r0, r1, q0, q1;
    int rc;
    char msg[1024];
    stn_stats st; /* its bytes (merged at the join; its time overlaps the main thread's) */
} ooc_reader;

static void *reader_main(void *arg) {
    ooc_reader *rd = arg;
    ooc *e = rd->e;
    const ooc_rows rows = {rd->r0, rd->r1, rd->q0, rd->q1};
    for (int i = 0; i < e->d->nfields;
         i++) /* the whole block's runs asked at once: the device gets a queue */
        for (int l = 0; l < ooc_nlevels_read(&e->f[i]); l++)
            if (stn_ooc_source_of(&e->model, &e->plan, i, l, rd->sweep) == STN_SRC_NPY)
                stn_ooc_npy_ahead(e, i, l, e->f[i].ring[ooc_arr(&e->f[i], -l)], &rows);
    for (int i = 0; rd->rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        for (int l = 0; rd->rc == 0 && l < ooc_nlevels_read(f); l++)
            if (stn_ooc_source_of(&e->model, &e->plan, i, l, rd->sweep) == STN_SRC_NPY)
                rd->rc = stn_ooc_npy_box_st(e, i, l, f->ring[ooc_arr(f, -l)], &rows, &rd->st);
    }
    if (rd->rc)
        snprintf(rd->msg, sizeof rd->msg, "%s", stn_errmsg());
    return NULL;
}

/* Start reading the --init rows of slices [r0, r1) of the current row, if the sweep has any. */
int stn_ooc_reader_start(ooc *e, int64_t sweep, int64_t r0, int64_t r1) {
    int any = 0;
    for (int i = 0; i < e->d->nfields; i++)
        for (int l = 0; l < ooc_nlevels_read(&e->f[i]); l++)
            any |= stn_ooc_source_of(&e->model, &e->plan, i, l, sweep) == STN_SRC_NPY;
    if (!any || e->alg2 || e->plan.schedule == STN_SCHED_ALG1 || r1 <= r0 || e->qhi <= e->qnew || e->own_axes)
        return 0; /* (wrap-around slices move with e->rshift set, which the thread would share) */
    ooc_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return stn_error(-ENOMEM, "out of memory starting the --init reader");
    *rd = (ooc_reader){.e = e, .sweep = sweep, .r0 = r0, .r1 = r1, .q0 = e->qnew, .q1 = e->qhi};
    int rc = pthread_create(&rd->th, NULL, reader_main, rd);
    if (rc) { /* no thread: enter_block reads them itself, under no compute; say so once */
        free(rd);
        if (!e->reader_warned++)
            stn_warn(e->r->log,
                     "cannot start the --init reader thread (%s); the --init files are read without "
                     "overlapping the compute",
                     strerror(rc));
        return 0;
    }
    e->reader = rd;
    return 0;
}

/* Wait for the reader (time blocked: wait), take its bytes and its failure. */
int stn_ooc_reader_join(ooc *e) {
    ooc_reader *rd = e->reader;
    if (!rd)
        return 0;
    double t0 = stn_now();
    pthread_join(rd->th, NULL);
    stn_stats_add_time(&e->res->st, STN_PHASE_WAIT, t0);
    e->res->st.bytes_read += rd->st.bytes_read;
    e->res->import_seconds += rd->st.seconds[STN_PHASE_READ]; /* (overlapped with the kernels) */
    int rc = rd->rc ? stn_error(rd->rc, "%s", rd->msg) : 0;
    free(rd);
    e->reader = NULL;
    return rc;
}
