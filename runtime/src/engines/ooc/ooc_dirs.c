/* ooc_dirs.c -- --dir a,b: one scratch directory per NUMA node (docs/design/022, docs/cli.md).  The grid's
 * rows are cut into one slab a node, in proportion to the node's threads (base/numa.c's groups); every grid
 * file of the engine lives in parts, slab k's rows in directory k (io/gridparts.c); the state, records
 * and lock files stay in the first directory, and each other directory has a lock file of its own.  One
 * directory on several nodes: a plan of whole planes gets the slabs, the groups and the rings' binding, the
 * files stay whole (one_dir_slabs); on one node nothing of this runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir_of(const ooc *e, int k) { return e->fs.ndirs > 1 ? e->r->o->dirs[k] : e->r->o->dir; }

/* The kernels' groups (stn_groups): node k of n's threads compute the tiles of its slab's rows (e->fs.slab),
 * and count them (the counters kept across calls: a replan's second call starts none anew). */
static int groups(ooc *e, int n) {
    const stn_numa *nu = &e->res->numa;
    stn_groups *g = &e->fs.groups;
    if (!g->seen) {
        if (!(g->seen = malloc(3 * sizeof *g->seen * (size_t)nu->nthreads)))
            return stn_error(-ENOMEM, "out of memory");
        for (int t = 0; t < nu->nthreads; t++)
            g->seen[3 * t] = INT64_MAX, g->seen[3 * t + 1] = INT64_MIN, g->seen[3 * t + 2] = 0;
    }
    for (int k = 0; k <= n; k++)
        g->first[k] = k < n ? nu->node[k].first_thread : nu->nthreads, g->y[k] = e->fs.slab[k];
    g->n = n;
    return 0;
}

/* One --dir on several nodes (one process, or a rank alone on its machine), a plan of whole planes: the rows
 * cut into one slab a node as with a list (each node's threads compute its slab, each node's rows of every
 * slot bound to it), the files in the one directory.  Any other plan keeps the interleaved window and the
 * threads' plain split (a y-blocked or 2d block is a few rows: one node's alone); 0 and nothing changed when
 * a node has no thread or no row. */
static int one_dir_slabs(ooc *e) {
    stn_numa *nu = &e->res->numa;
    int64_t ny = e->r->view.ny, slab[STN_NUMA_MAX_NODES + 1];
    e->fs.groups.n = 0;
    if (nu->nodes <= 1 || nu->local_rank >= 0 || nu->nthreads < 1 || nu->nodes > STN_GROUPS_MAX)
        return 0;
    if (e->d->ndim != 3 || e->plan.r.axis != 2) {
        if (!nu->slab_axis)
            return 0;
        for (int k = 0; k < nu->nodes; k++) /* (an earlier plan's slabs: its rings are gone) */
            nu->node[k].buffer_bytes = 0;
        snprintf(nu->buffers, sizeof nu->buffers,
                 "interleaved: a %s window's slots hold every node's rows in turn",
                 e->d->ndim == 2 ? "2d" : "y-blocked");
        return 0;
    }
    stn_numa_cut(nu, ny, slab);
    for (int k = 0; k < nu->nodes; k++)
        if (nu->node[k].threads == 0 || slab[k + 1] <= slab[k])
            return 0;
    for (int k = 0; k < nu->nodes; k++) {
        e->fs.slab[k] = slab[k], e->fs.slab[k + 1] = slab[k + 1];
        nu->node[k].y0 = nu->node[k].s0 = slab[k], nu->node[k].y1 = nu->node[k].s1 = slab[k + 1];
    }
    nu->slab_axis = 1;
    return groups(e, nu->nodes);
}

void stn_ooc_dirs_computed(ooc *e) {
    stn_numa *nu = &e->res->numa;
    const stn_groups *g = &e->fs.groups;
    if (!g->seen) /* (no slabs ever, or one --dir's plan that never had them) */
        return;
    for (int k = 0; k < nu->nodes; k++) {
        stn_numa_node *nd = &nu->node[k];
        nd->cy0 = INT64_MAX, nd->cy1 = INT64_MIN, nd->crows = 0;
        for (int t = nd->first_thread; t < nd->first_thread + nd->threads; t++) {
            nd->cy0 = g->seen[3 * t] < nd->cy0 ? g->seen[3 * t] : nd->cy0;
            nd->cy1 = g->seen[3 * t + 1] > nd->cy1 ? g->seen[3 * t + 1] : nd->cy1;
            nd->crows += g->seen[3 * t + 2];
        }
        if (nd->crows == 0)
            nd->cy0 = nd->cy1 = 0;
    }
    nu->computed = 1;
}

int stn_ooc_dirs_slabs(ooc *e) {
    const stn_opts *o = e->r->o;
    stn_numa *nu = &e->res->numa;
    int n = o->ndirs > 1 ? o->ndirs : 1;
    int64_t ny = e->r->view.ny;
    e->fs.ndirs = n;
    e->fs.slab[0] = 0, e->fs.slab[n] = ny;
    if (n == 1)
        return 0;
    if (nu->nodes != n || nu->nthreads < 1) /* (args_check.c compared the list with the same topology) */
        return stn_error(-EINVAL,
                         "--dir %s...: %d directories, but the run's threads were placed on %d NUMA node%s",
                         o->dir, n, nu->nodes, nu->nodes == 1 ? "" : "s");
    stn_numa_cut(nu, ny, e->fs.slab);
    for (int k = 0; k < n; k++) {
        if (nu->node[k].threads == 0 || e->fs.slab[k + 1] <= e->fs.slab[k])
            return stn_error(-EINVAL,
                             "--dir: directory %d (%s) is NUMA node %d's, which %s: each node of a list "
                             "needs threads and rows (%lld rows of y, %d threads over %d nodes); give more "
                             "--threads, or one directory",
                             k + 1, o->dirs[k], nu->node[k].os_index,
                             nu->node[k].threads ? "gets no row of the grid" : "runs no thread",
                             (long long)ny, nu->nthreads, n);
        nu->node[k].dir = o->dirs[k];
        nu->node[k].y0 = e->fs.slab[k], nu->node[k].y1 = e->fs.slab[k + 1];
    }
    nu->dirs = n;
    return groups(e, n);
}

int stn_ooc_dirs_bind(ooc *e) {
    stn_numa *nu = &e->res->numa;
    if (e->fs.ndirs <= 1) {
        int rc = one_dir_slabs(e);
        if (rc || e->fs.groups.n <= 1)
            return rc;
    }
    if (e->plan.r.axis != 2) { /* (a slot of a y-blocked or 2d window holds every node's rows in turn) */
        for (int k = 0; k < nu->nodes; k++)
            nu->node[k].buffer_bytes = 0;
        snprintf(nu->buffers, sizeof nu->buffers,
                 "interleaved: a %s window's slots hold every node's rows in turn",
                 e->d->ndim == 2 ? "2d" : "y-blocked");
        return 0;
    }
    char **bufs = malloc(3 * sizeof *bufs * (size_t)e->d->nfields);
    int n = 0;
    if (!bufs)
        return stn_error(-ENOMEM, "out of memory");
    for (int i = 0; i < e->d->nfields; i++)
        for (int a = 0; a < 3; a++)
            if (e->f[i].ring[a])
                bufs[n++] = e->f[i].ring[a];
    stn_numa_bind_rows(nu, bufs, n, (size_t)e->plan.slice_bytes, e->plan.ring_slices,
                       (size_t)e->plan.row_bytes);
    free(bufs);
    return 0;
}

int stn_ooc_open_grid(ooc *e, stn_gridfile *gf, const char *name, int64_t nz, int flags) {
    const stn_view *g = &e->r->view;
    int n = e->fs.ndirs > 1 ? e->fs.ndirs : 1;
    char *paths[STN_NUMA_MAX_NODES] = {0};
    int rc = 0;
    for (int k = 0; rc == 0 && k < n; k++)
        if (asprintf(&paths[k], "%s/%s", dir_of(e, k), name) < 0)
            paths[k] = NULL, rc = stn_error(-ENOMEM, "out of memory");
    if (rc == 0)
        rc = stn_gridfile_open_parts(gf, (const char *const *)paths, n > 1 ? e->fs.slab : NULL, n, g->nx,
                                     g->ny, nz, e->d->elem_size, e->plan.align, flags | ooc_tier(e));
    for (int k = 0; k < n; k++)
        free(paths[k]);
    return rc;
}

int stn_ooc_dirs_lock(ooc *e, int (*lock)(const char *dir, const char *name, char *path, size_t n, int *fd)) {
    for (int k = 1; k < e->fs.ndirs; k++) {
        e->fs.dlock_fd[k] = -1;
        if (!(e->fs.dlock[k] = malloc(4096)))
            return stn_error(-ENOMEM, "out of memory");
        int rc = lock(dir_of(e, k), e->d->name, e->fs.dlock[k], 4096, &e->fs.dlock_fd[k]);
        if (rc)
            return rc;
    }
    return 0;
}

void stn_ooc_dirs_unlock(ooc *e) {
    for (int k = 1; k < STN_NUMA_MAX_NODES; k++) {
        if (e->fs.dlock[k] && e->fs.dlock_fd[k] >= 0) { /* removed while held, as the first one */
            unlink(e->fs.dlock[k]);
            close(e->fs.dlock_fd[k]);
        }
        free(e->fs.dlock[k]);
        e->fs.dlock[k] = NULL, e->fs.dlock_fd[k] = -1;
    }
    free(e->fs.groups.seen);
    e->fs.groups.seen = NULL, e->fs.groups.n = 0;
}

int stn_ooc_dirs_space(ooc *e, uint64_t need) {
    int n = e->fs.ndirs > 1 ? e->fs.ndirs : 1;
    uint64_t ny = (uint64_t)e->r->view.ny;
    for (int k = 0; k < n; k++) {
        /* every file is a whole number of rows of y: a slab's share is exact */
        uint64_t mine = n == 1 ? need : need / ny * (uint64_t)(e->fs.slab[k + 1] - e->fs.slab[k]), avail = 0;
        int rc = stn_statvfs_free(dir_of(e, k), &avail);
        if (rc)
            return rc;
        if (mine > avail) {
            char a[32], b[32], rows[64] = "";
            if (n > 1)
                snprintf(rows, sizeof rows, " (rows %lld to %lld of y)", (long long)e->fs.slab[k],
                         (long long)e->fs.slab[k + 1]);
            return stn_error(-ENOSPC, "--dir %s: the scratch files%s need %s, but only %s is free there",
                             dir_of(e, k), rows, stn_fmt_bytes(a, sizeof a, mine),
                             stn_fmt_bytes(b, sizeof b, avail));
        }
    }
    return 0;
}

int stn_ooc_dirs_text(const ooc *e, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    if (e->fs.ndirs <= 1)
        return 0; /* (one directory: the state file as before) */
    len += (size_t)snprintf(buf, n, "dirs %d\n", e->fs.ndirs);
    for (int k = 0; k < e->fs.ndirs && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "dir %s\n", dir_of(e, k));
    return len < n ? 0 : stn_error(-ENAMETOOLONG, "--dir: the list is too long for the state file");
}

/* The directories of this run, joined by commas as --dir takes them, into buf. */
static void list_of(const ooc *e, char *buf, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < (e->fs.ndirs > 1 ? e->fs.ndirs : 1) && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? "," : "", dir_of(e, k));
}

int stn_ooc_dirs_check(const ooc *e, FILE *fp) {
    int saved = 1, same = 1;
    if (fscanf(fp, " dirs %d", &saved) != 1)
        saved = 1;
    char line[4200], was[4096], now[4096];
    size_t len = (size_t)snprintf(was, sizeof was, "%s", e->r->o->dir); /* (one: the state file's own) */
    for (int k = 0; saved > 1 && k < saved; k++) {
        if (fscanf(fp, " dir ") != 0 || !fgets(line, sizeof line, fp))
            return stn_error(-EINVAL, "--resume: '%s' is not a state file this program wrote", e->fs.state);
        line[strcspn(line, "\n")] = '\0';
        same &= k < e->fs.ndirs && strcmp(line, dir_of(e, k)) == 0;
        if (len < sizeof was)
            len = k ? len + (size_t)snprintf(was + len, sizeof was - len, ",%s", line)
                    : (size_t)snprintf(was, sizeof was, "%s", line);
    }
    if (saved == (e->fs.ndirs > 1 ? e->fs.ndirs : 1) && same)
        return 0;
    list_of(e, now, sizeof now);
    return stn_error(
        -EINVAL,
        "--resume: the run saved in '%s' kept its scratch files in --dir %s (%d director%s), this "
        "run names --dir %s: give the list of the run it resumes, in the same order, or run "
        "without --resume to start over",
        e->fs.state, was, saved, saved == 1 ? "y" : "ies", now);
}
