/* ooc_chunks.c -- the out-of-core engine's scratch files chunked along y (docs/design/023): each file
 * set's chunk table, chosen by the plan (plan/layout.c) when the set is about to be written whole, set on
 * its files (io/gridio.c then places every row through it), and kept for the state file so that
 * --resume reads the files back in the layout they were written in.  A re-plan (ooc_refine.c) needs
 * nothing here: the sweep after it reads with the old table and writes with the new. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Set table `set` (0, 1: the state levels' file sets; 2: the inputs' files) to the n edges ed and put
 * it on that set's files (edges past a file's rows left out: still a valid table). */
static int set_table(ooc *e, int set, const int64_t *ed, int n) {
    int64_t *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (n > 0 && !copy)
        return stn_error(-ENOMEM, "out of memory for a chunk table of %d edges", n);
    if (n > 0)
        memcpy(copy, ed, (size_t)n * sizeof *copy);
    free(e->chunk_e[set]);
    e->chunk_e[set] = copy, e->chunk_n[set] = n;
    e->res->scratch_chunked |= n > 0;
    int rc = 0;
    for (int i = 0; rc == 0 && i < e->d->nfields; i++) {
        ooc_field *f = &e->f[i];
        int state = f->m->state && !e->alg2;
        if (set < 2 ? !state : f->m->state || f->m->input != STN_SRC_SCRATCH)
            continue;
        for (int l = 0; rc == 0 && l < (set < 2 ? f->m->levels : 1); l++) {
            stn_gridfile *gf = &f->scratch[set < 2 ? set : 0][l];
            int m = 0;
            while (m < n && ed[m] < gf->ny)
                m++;
            if (gf->path)
                rc = stn_gridfile_set_chunks(gf, ed, m);
        }
    }
    return rc;
}

int stn_ooc_chunk_sweep(ooc *e, int64_t sweep, int64_t T) {
    const stn_ooc_plan *p = &e->plan;
    int64_t *ed = malloc(STN_OOC_MAX_CHUNKS * sizeof *ed);
    if (!ed)
        return stn_error(-ENOMEM, "out of memory for a chunk table");
    int64_t Tr = sweep + 1 < p->nsweeps ? stn_ooc_sweep_steps(p, sweep + 1) : T;
    int n = stn_ooc_chunk_edges(p, T, Tr, 0, ed, STN_OOC_MAX_CHUNKS - 1);
    int rc = e->alg2 ? 0 : set_table(e, (int)((sweep + 1) % 2), ed, n < 0 ? 0 : n);
    n = stn_ooc_chunk_edges(p, 0, T, 1, ed, STN_OOC_MAX_CHUNKS - 1); /* the spill: this sweep's only */
    for (int i = 0; rc == 0 && i < e->d->nfields; i++)
        for (int a = 0; rc == 0 && a < 3; a++) {
            stn_gridfile *gf = &e->f[i].spill[a];
            int m = 0;
            while (m < n && ed[m] < gf->ny)
                m++;
            if (gf->path)
                rc = stn_gridfile_set_chunks(gf, ed, m);
        }
    free(ed);
    return rc;
}

int stn_ooc_chunk_inputs(ooc *e) {
    int64_t *ed = malloc(STN_OOC_MAX_CHUNKS * sizeof *ed);
    if (!ed)
        return stn_error(-ENOMEM, "out of memory for a chunk table");
    int n = stn_ooc_chunk_edges(&e->plan, 0, e->plan.bt, 0, ed, STN_OOC_MAX_CHUNKS - 1);
    int rc = set_table(e, 2, ed, n < 0 ? 0 : n);
    free(ed);
    return rc;
}

int stn_ooc_chunk_apply(ooc *e) {
    int rc = 0;
    for (int set = 0; rc == 0 && set < 3; set++) {
        int64_t *ed = e->chunk_e[set];
        e->chunk_e[set] = NULL; /* (set_table copies and frees the old) */
        rc = set_table(e, set, ed, e->chunk_n[set]);
        free(ed);
    }
    return rc;
}

void stn_ooc_chunk_free(ooc *e) {
    for (int set = 0; set < 3; set++) {
        free(e->chunk_e[set]);
        e->chunk_e[set] = NULL, e->chunk_n[set] = 0;
    }
}

int stn_ooc_chunk_text(const ooc *e, char **text) {
    size_t cap = 64, len = 0;
    for (int set = 0; set < 3; set++)
        cap += 32 + 21 * (size_t)e->chunk_n[set];
    char *t = malloc(cap);
    if (!t)
        return stn_error(-ENOMEM, "out of memory for the state file's chunk tables");
    for (int set = 0; set < 3; set++) {
        len += (size_t)snprintf(t + len, cap - len, "chunks %d %d", set, e->chunk_n[set]);
        for (int k = 0; k < e->chunk_n[set]; k++)
            len += (size_t)snprintf(t + len, cap - len, " %" PRId64, e->chunk_e[set][k]);
        len += (size_t)snprintf(t + len, cap - len, "\n");
    }
    *text = t;
    return 0;
}

int stn_ooc_chunk_parse(ooc *e, FILE *fp) {
    for (int k = 0; k < 3; k++) {
        int set = -1, n = -1;
        if (fscanf(fp, " chunks %d %d", &set, &n) != 2 || set != k || n < 0 || n >= STN_OOC_MAX_CHUNKS)
            return -EINVAL;
        int64_t *ed = n ? malloc((size_t)n * sizeof *ed) : NULL;
        if (n && !ed)
            return -ENOMEM;
        for (int i = 0; i < n; i++)
            if (fscanf(fp, " %" SCNd64, &ed[i]) != 1 || ed[i] <= (i ? ed[i - 1] : 0)) {
                free(ed);
                return -EINVAL;
            }
        free(e->chunk_e[set]);
        e->chunk_e[set] = ed, e->chunk_n[set] = n;
    }
    return 0;
}
