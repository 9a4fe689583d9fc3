/* args_check.c -- the generated program's command line checked as a whole, once every option is read
 * (args.c): the grid against the halo and 64-bit sizes, options that exclude each other, --ranks in a
 * run of one, no output over an input or another output.  The same rules as args.c's: the option and
 * the value as the user wrote them, and what would have been accepted. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per dimension, the interior (n - halo_lo - halo_hi) must hold at least one cell; with a
 * neumann or periodic field also at least max(halo_lo, halo_hi) cells, so every mirror image (and
 * every cell a boundary cell wraps to) is interior. */
static int check_size(const stn_program_desc *d, const stn_opts *o) {
    static const char dim[3] = {'x', 'y', 'z'};
    int neumann = 0;
    for (int f = 0; f < d->nfields; f++)
        neumann |= stn_bc_mirrors(&d->fields[f]); /* a wrap, likewise */
    for (int k = 0; k < d->ndim; k++) {
        int lo = d->halo_lo[k], hi = d->halo_hi[k];
        int64_t interior = 1;
        if (neumann && (lo > interior || hi > interior))
            interior = lo > hi ? lo : hi;
        int64_t need = lo + hi + interior;
        if (o->size[k] >= need)
            continue;
        return stn_error(-EINVAL,
                         "--size %s: %c is %lld, but this stencil needs at least %lld (halo %d below + %d "
                         "above + %lld interior cell%s%s)",
                         o->size_text, dim[k], (long long)o->size[k], (long long)need, lo, hi,
                         (long long)interior, interior == 1 ? "" : "s",
                         interior > 1
                             ? "; neumann boundaries mirror interior cells, so the interior must be at least "
                               "as wide as the halo"
                             : "");
    }
    return 0;
}

/* Cells, bytes per field and all buffers together must fit in 64-bit sizes (and size_t). */
static int check_overflow(const stn_program_desc *d, const stn_opts *o) {
    int64_t cells, bytes, total = 0;
    int buffers = 0;
    for (int f = 0; f < d->nfields; f++)
        buffers += d->fields[f].kind == STN_FIELD_STATE ? d->fields[f].levels + 1 : 1;
    if (__builtin_mul_overflow(o->size[0], o->size[1], &cells) ||
        __builtin_mul_overflow(cells, o->size[2], &cells) ||
        __builtin_mul_overflow(cells, (int64_t)d->elem_size, &bytes) ||
        __builtin_mul_overflow(bytes, (int64_t)(buffers > 0 ? buffers : 1), &total) ||
        (uint64_t)total > SIZE_MAX)
        return stn_error(-EINVAL, "--size %s: the grid is too large (its size in bytes overflows 64 bits)",
                         o->size_text);
    return 0;
}

static const char *level_label(const stn_program_desc *d, int slot, char *buf, size_t n) {
    snprintf(buf, n, "%s%s", d->fields[slot / 2].name, slot % 2 ? ".prev" : "");
    return buf;
}

/* The files of sources and receivers: a record's --out is no input and no other output; no
 * output is a file of points. */
static int check_point_files(const stn_program_desc *d, const stn_opts *o) {
    const char *in[2 * d->nfields + d->nseries + d->npointsets + 1];
    const char *out[2 * d->nfields + d->nrecords + 2];
    int nin = 0, nout = 0;
    for (int i = 0; i < 2 * d->nfields; i++)
        in[nin++] = o->init_path[i], out[nout++] = o->out_path[i];
    for (int s = 0; s < d->nseries; s++)
        in[nin++] = o->series_path[s];
    for (int s = 0; s < d->npointsets; s++)
        in[nin++] = o->points_path[s];
    for (int s = 0; s < d->nrecords; s++)
        out[nout++] = o->record_path[s];
    out[nout++] = o->report;
    for (int i = 0; i < nout; i++) {
        int rec = i >= 2 * d->nfields && i < 2 * d->nfields + d->nrecords;
        for (int j = 0; out[i] && j < nin; j++)
            if (in[j] && (rec || j >= 2 * d->nfields + d->nseries) && stn_same_file(out[i], in[j]))
                return stn_error(-EINVAL,
                                 "'%s' is both an input (--init) and an output; input files are never "
                                 "overwritten: choose another output name",
                                 out[i]);
        for (int j = 0; rec && out[i] && j < nout; j++)
            if (j != i && out[j] && stn_same_file(out[i], out[j]))
                return stn_error(-EINVAL, "--out %s=%s: '%s' is also another output of the run",
                                 d->records[i - 2 * d->nfields].name, out[i], out[i]);
    }
    return 0;
}

/* Outputs never overwrite inputs, nor each other; the report neither. */
static int check_files(const stn_program_desc *d, const stn_opts *o) {
    char a[80], b[80];
    int n = 2 * d->nfields;
    for (int i = 0; i < n; i++) {
        const char *out = o->out_path[i];
        for (int j = 0; out && j < n; j++) {
            if (o->init_path[j] && stn_same_file(out, o->init_path[j]))
                return stn_error(-EINVAL,
                                 "--out %s=%s: '%s' is the --init file of %s; input files are never "
                                 "overwritten: choose another output name",
                                 level_label(d, i, a, sizeof a), out, out, level_label(d, j, b, sizeof b));
            if (j < i && o->out_path[j] && stn_same_file(out, o->out_path[j]))
                return stn_error(-EINVAL, "--out %s=%s: '%s' is also the --out file of %s",
                                 level_label(d, i, a, sizeof a), out, out, level_label(d, j, b, sizeof b));
        }
        if (o->report && out && stn_same_file(o->report, out))
            return stn_error(-EINVAL, "--report %s: '%s' is also the --out file of %s", o->report, o->report,
                             level_label(d, i, a, sizeof a));
        if (o->report && o->init_path[i] && stn_same_file(o->report, o->init_path[i]))
            return stn_error(-EINVAL,
                             "--report %s: '%s' is the --init file of %s; input files are never overwritten",
                             o->report, o->report, level_label(d, i, a, sizeof a));
        for (int s = 0; s < d->nseries; s++)
            if (o->series_path[s] && ((out && stn_same_file(out, o->series_path[s])) ||
                                      (o->report && stn_same_file(o->report, o->series_path[s]))))
                return stn_error(
                    -EINVAL, "%s %s: '%s' is the --init file of series %s; input files are never overwritten",
                    out && stn_same_file(out, o->series_path[s]) ? "--out" : "--report",
                    out && stn_same_file(out, o->series_path[s]) ? out : o->report, o->series_path[s],
                    d->series[s].name);
    }
    return 0;
}

/* --ranks of more than one rank in a run of one (nranks): a program built without MPI, or not started by
 * mpirun (more ranks than one are checked against mpirun's once the run splits the grid, stn_part_dims). */
static int check_ranks(const stn_opts *o, int nranks) {
    int64_t n = o->ranks[0] * (o->ranks[1] ? o->ranks[1] : 1) * (o->ranks[2] ? o->ranks[2] : 1);
    if (!o->ranks[0] || n == 1 || nranks > 1)
        return 0;
#ifdef STN_MPI
    return stn_error(
        -EINVAL, "--ranks %s: %" PRId64 " ranks, but mpirun started 1 (run it with 'mpirun -np %" PRId64 "')",
        o->ranks_text, n, n);
#else
    return stn_error(-EINVAL,
                     "--ranks %s: %" PRId64
                     " ranks, but this program was built without MPI (it runs as one): "
                     "build it with 'stencilc FILE.stn --mpi' and run it with 'mpirun -np %" PRId64 "'",
                     o->ranks_text, n, n);
#endif
}

/* --dir a,b,...: one directory per NUMA node (docs/cli.md), the out-of-core engine's files split along y
 * over them.  A list is cut at its commas into o->dirs (o->dir its first); one directory is left as it is.
 * Under MPI ranks each rank takes one entry, its node's (o->rank_dirs: program.c picks it, %r allowed), and
 * a machine of one node takes the first.  Refused: an empty name, more than one directory but not one a
 * node, %r in one process, and with an engine other than ooc. */
static int check_dirs(stn_opts *o, int nranks) {
    o->ndirs = 1, o->dirs[0] = o->dir, o->rank_dirs = 0, o->dir_entry = 0;
    if (!o->dir || !strchr(o->dir, ','))
        return 0;
    free(o->dirs_buf);
    if (!(o->dirs_buf = strdup(o->dir)))
        return stn_error(-ENOMEM, "out of memory");
    int n = 0;
    for (char *s = o->dirs_buf, *c;; s = c + 1) {
        c = strchr(s, ',');
        if (c)
            *c = '\0';
        if (!*s)
            return stn_error(-EINVAL, "--dir %s: directory %d of the list is empty", o->dir, n + 1);
        if (n == STN_NUMA_MAX_NODES)
            return stn_error(-EINVAL, "--dir %s: more than %d directories", o->dir, STN_NUMA_MAX_NODES);
        o->dirs[n++] = s;
        if (!c)
            break;
    }
    if (nranks == 1 && strstr(o->dir, "%r"))
        return stn_error(-EINVAL,
                         "--dir %s: %%r is an MPI rank's number; in one process a list of directories gives "
                         "each NUMA node its directory: name them without %%r",
                         o->dir);
    if (o->mode != STN_MODE_OOC)
        return stn_error(-EINVAL,
                         "--dir %s: a list of directories splits the out-of-core scratch files over the "
                         "NUMA nodes: it needs --mode ooc (--mode %s keeps one directory)",
                         o->dir, stn_mode_names[o->mode]);
    int nodes = stn_numa_count();
    if (nranks > 1 && (nodes == 1 || n == nodes)) { /* (each rank its node's entry; one node: the first) */
        o->rank_dirs = n, o->dir = o->dirs[0];
        return 0;
    }
    if (n != nodes)
        return stn_error(
            -EINVAL,
            "--dir %s: %d directories, but hwloc finds %d NUMA node%s with processing units: give "
            "one directory, or one per node (in the nodes' order)",
            o->dir, n, nodes, nodes == 1 ? "" : "s");
    o->ndirs = n, o->dir = o->dirs[0];
    return 0;
}

int stn_opts_check(const stn_program_desc *d, stn_opts *o, int nranks) {
    int rc = check_size(d, o);
    if (rc == 0)
        rc = check_overflow(d, o);
    int periodic = 0, stream = d->ndim == 3 ? 2 : 1; /* the axis whole-plane blocks stream along */
    for (int i = 0; i < d->nfields; i++)
        if (d->fields[i].kind == STN_FIELD_STATE)
            periodic |= d->fields[i].periodic;
    if (rc == 0 && (periodic >> stream) & 1 && o->mode == STN_MODE_OOC && o->schedule == STN_SCHED_ALG2)
        rc = stn_error(
            -EINVAL,
            "--schedule alg2: this stencil is periodic along %c, and alg2 updates its files in place, "
            "so the wrap-around planes the last block reads would already be overwritten; use ref or "
            "alg1",
            "xyz"[stream]);
    if (rc == 0 && o->have_block && o->tuner != STN_TUNER_NONE)
        rc = stn_error(-EINVAL, "--block fixes the blocking by hand; it cannot be combined with --tuner %s",
                       stn_tuner_names[o->tuner]);
    if (rc == 0 && o->have_block && o->rank != STN_RANK_NONE)
        rc = stn_error(-EINVAL, "--block fixes the blocking by hand; it cannot be combined with --rank %s",
                       stn_rank_names[o->rank]);
    if (rc == 0)
        rc = check_ranks(o, nranks);
    if (rc == 0)
        rc = check_files(d, o);
    if (rc == 0)
        rc = check_point_files(d, o);
    for (int i = 0; rc == 0 && o->plan_only && i < 2 * d->nfields + d->nrecords; i++) {
        const char *out = i < 2 * d->nfields ? o->out_path[i] : o->record_path[i - 2 * d->nfields];
        if (out)
            rc = stn_error(-EINVAL, "--plan-only computes nothing, so it writes no --out (%s)", out);
    }
    if (rc == 0)
        rc = stn_save_check(d, o, nranks);
    if (rc == 0 && o->tier == STN_TIER_PMEM && o->mode != STN_MODE_OOC)
        rc = stn_error(-EINVAL,
                       "--tier pmem maps the out-of-core scratch files with libpmem: it needs --mode ooc "
                       "(--mode %s keeps its levels %s)",
                       stn_mode_names[o->mode],
                       o->mode == STN_MODE_MMAP ? "in mapped files of its own" : "in DRAM");
    if (rc == 0 && (o->mode == STN_MODE_GPU || o->mode == STN_MODE_GPU_OOC) && !d->cuda)
        rc = stn_error(-EINVAL,
                       "--mode %s: this program was built without CUDA; build it with `stencilc --target "
                       "cuda --emit=exe` "
                       "(docs/cli.md)",
                       stn_mode_names[o->mode]);
    if (rc == 0 && o->plan_only && o->mode != STN_MODE_OOC)
        rc = stn_error(-EINVAL, "--plan-only shows the out-of-core plan: it needs --mode ooc");
    if (rc == 0 && o->machine && !o->plan_only)
        rc = stn_error(-EINVAL,
                       "--machine %s describes a machine to plan for: it needs --plan-only (a run "
                       "uses the figures of the machine it runs on)",
                       o->machine);
    if (rc == 0 && !o->dir)
        o->dir = "."; /* scratch files go beside the user's work unless told otherwise */
    if (rc == 0)
        rc = check_dirs(o, nranks);
    return rc;
}
