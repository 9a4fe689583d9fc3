/* runfiles.c -- the files of a run around its engine: every --init file looked at before anything is
 * allocated; every output's temporary, and the report's, created before the computation (so that an
 * unwritable directory, a full disk or a report that is a FIFO fails at once, not after hours); and
 * after it the outputs synced, the report written, then all of them renamed into place, or none. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "program/stn_program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t *stn_npy_shape(const stn_run *r, int64_t shape[3]) {
    shape[0] = r->o->size[2];
    shape[1] = r->o->size[1];
    shape[2] = r->o->size[0];
    return shape + 3 - stn_dims(r->d); /* (nz, ny, nx), (ny, nx) or (nx,): a 1d grid is one row */
}

int stn_check_inputs(stn_run *r) {
    int64_t shape[3], *sh = stn_npy_shape(r, shape);
    for (int s = 0; s < 2 * r->d->nfields; s++) {
        const char *path = r->o->init_path[s];
        if (!path)
            continue;
        int fd = stn_open_input(path);
        int rc = 0;
        if (fd < 0) {
            rc = fd;
        } else {
            stn_npy_header h;
            rc = stn_npy_read_header(path, fd, &h);
            if (rc == 0)
                rc = stn_npy_check(path, &h, r->d->npy_descr, stn_dims(r->d), sh);
            close(fd);
        }
        if (rc)
            return stn_error(rc, "--init %s%s=%s: %s", r->d->fields[s / 2].name, s % 2 ? ".prev" : "", path,
                             stn_errmsg());
    }
    return 0;
}

/* One output's writer: under MPI rank 0 creates the temporary and the others join it (its name
 * broadcast; empty when rank 0 failed, and every rank then fails). */
static int open_writer(const char *path, const char *descr, int ndim, const int64_t *shape,
                       stn_npy_writer **w) {
    if (stn_par_size() == 1)
        return stn_npy_writer_open(path, descr, ndim, shape, w);
    char tmp[4096] = "";
    int rc = 0;
    if (stn_par_rank() == 0) {
        rc = stn_npy_writer_open(path, descr, ndim, shape, w);
        if (rc == 0)
            snprintf(tmp, sizeof tmp, "%s", stn_npy_writer_tmp(*w));
    }
    stn_par_bcast(tmp, sizeof tmp, 0);
    if (stn_par_rank() > 0)
        rc = tmp[0] ? stn_npy_writer_join(path, tmp, descr, ndim, shape, w)
                    : stn_error(-EIO, "cannot write '%s': rank 0 could not create it", path);
    return rc;
}

/* The snapshot file: made by every rank together (parallel HDF5), else by rank 0, the others holding a
 * handle without a file (engines/engine.c sends their cells to rank 0, which says so). */
static int open_snapshots(stn_run *r) {
    uint64_t piece = stn_mem_snap_piece(r->mem_budget);
    int together = stn_par_h5_parallel();
    if (together || stn_par_size() < 2) {
        stn_h5_ranks ranks = {stn_par_rank(), stn_par_size(), stn_par_bcast, stn_par_h5_fapl};
        return stn_h5_open(r->d, r->o, piece, together ? &ranks : NULL, &r->snap);
    }
    /* rank 0 gathers: the out-of-core tiles send their pieces to it as they compute */
    stn_h5_gather g = {stn_par_rank(),    stn_par_size(),     piece,
                       stn_par_snap_send, stn_par_snap_probe, stn_par_snap_recv};
    int rc = stn_par_rank() > 0 ? stn_h5_open_remote(r->d, r->o, &r->snap)
                                : stn_h5_open(r->d, r->o, piece, NULL, &r->snap);
    if (rc)
        return rc;
    stn_h5_set_gather(r->snap, &g);
    if (stn_par_rank() == 0)
        stn_warn(r->log,
                 "--save-to %s: this program's libhdf5 is not the parallel one, so rank 0 gathers the %d "
                 "ranks' cells and writes them alone (install libhdf5-openmpi-dev and build it again with "
                 "stencilc --mpi for every rank to write its own)",
                 r->o->save_to, stn_par_size());
    return 0;
}

int stn_outputs_open(stn_run *r, stn_afile *report) {
    int64_t shape[3], *sh = stn_npy_shape(r, shape);
    int rc = 0;
    memset(report, 0, sizeof *report);
    report->fd = -1;
    for (int s = 0; s < 2 * r->d->nfields; s++) { /* (every rank to the end: the opens are collective) */
        const char *path = r->o->out_path[s];
        int rc2 = path ? open_writer(path, r->d->npy_descr, stn_dims(r->d), sh, &r->writers[s]) : 0;
        if (rc2 && rc == 0)
            rc = stn_error(rc2, "--out %s%s=%s: %s", r->d->fields[s / 2].name, s % 2 ? ".prev" : "", path,
                           stn_errmsg());
    }
    for (int k = 0; k < r->d->nrecords; k++) { /* (steps, n): row t is step t's samples */
        const char *path = r->o->record_path[k];
        int64_t rs[2] = {r->o->steps, stn_record_points(r, k)};
        int rc2 = path ? open_writer(path, r->d->npy_descr, 2, rs, &r->writers[2 * r->d->nfields + k]) : 0;
        if (rc2 && rc == 0)
            rc = stn_error(rc2, "--out %s=%s: %s", r->d->records[k].name, path, stn_errmsg());
    }
    if (r->o->save_to && stn_par_h5_parallel() && stn_par_any(rc) && rc == 0) /* (its open is collective) */
        rc = stn_error(-EIO, "another rank could not open its outputs (its error is above)");
    if (rc == 0 && r->o->save_to) /* the snapshot file's temporary, its datasets made */
        rc = open_snapshots(r);
    /* the report's temporary, empty until the run is over (rank 0 writes it) */
    if (rc == 0 && r->o->report && stn_par_rank() == 0 && stn_afile_open(report, r->o->report, 0) != 0)
        rc = stn_error(-EINVAL, "--report %s: %s", r->o->report, stn_errmsg());
    return stn_par_agree(rc, "to open the outputs");
}

uint64_t stn_record_bytes(const stn_run *r, int k) {
    return (uint64_t)stn_record_points(r, k) * (uint64_t)r->d->elem_size;
}

/* A record's samples in memory, a row a step: a value per point, or per corner of an off-grid point. */
static size_t record_slot_bytes(const stn_run *r, int k) {
    return r->inputs.npts ? (size_t)r->o->steps * (size_t)r->inputs.npts[r->d->records[k].points] *
                                (size_t)r->d->elem_size
                          : 0;
}

/* Under MPI: every rank's counters to rank 0, whose report gives them per rank and their sums. */
static void gather_ranks(const stn_run *r, stn_result *res) {
    const stn_numa *nu = &res->numa;
    int placed = nu->nodes > 1 && nu->local_rank >= 0;
    uint64_t node = placed ? 1 + (uint64_t)nu->node[nu->rank_node].os_index : 0;
    uint64_t mine[STN_RANK_FIGURES] = {res->st.bytes_read,
                                       res->st.bytes_written,
                                       res->predicted_read,
                                       res->predicted_written,
                                       res->msg_sent,
                                       res->msg_predicted,
                                       node,
                                       r->o->rank_dirs > 1 ? 1 + (uint64_t)r->o->dir_entry : 0,
                                       placed ? (uint64_t)nu->rank_by : 0,
                                       res->gpu.have ? 2 + (uint64_t)(int64_t)res->gpu.device : 0,
                                       res->gpu.h2d,
                                       res->gpu.predicted_h2d,
                                       res->gpu.d2h,
                                       res->gpu.predicted_d2h};
    int P = stn_par_size();
    uint64_t *all = stn_par_rank() == 0 ? calloc((size_t)P * STN_RANK_FIGURES, sizeof *all) : NULL;
    uint64_t scratch[STN_RANK_FIGURES];
    stn_par_gather_u64(mine, STN_RANK_FIGURES, all ? all : scratch);
    if (!all)
        return;
    res->nranks = P;
    res->ranks = all;
    res->st.bytes_read = res->st.bytes_written = res->predicted_read = res->predicted_written = 0;
    res->msg_sent = res->msg_predicted = 0;
    for (int k = 0; k < P; k++) {
        const uint64_t *f = all + (size_t)k * STN_RANK_FIGURES;
        res->st.bytes_read += f[0], res->st.bytes_written += f[1];
        res->predicted_read += f[2], res->predicted_written += f[3];
        res->msg_sent += f[4], res->msg_predicted += f[5];
    }
    if (res->gpu.have) { /* (the GPU modes: the bytes each way are the ranks' sums too) */
        res->gpu.h2d = res->gpu.predicted_h2d = res->gpu.d2h = res->gpu.predicted_d2h = 0;
        for (int k = 0; k < P; k++) {
            const uint64_t *f = all + (size_t)k * STN_RANK_FIGURES + STN_RANK_GPU;
            res->gpu.h2d += f[1], res->gpu.predicted_h2d += f[2], res->gpu.d2h += f[3];
            res->gpu.predicted_d2h += f[4];
        }
    }
}

/* The records' samples written and every output synced (every rank its part). */
static int sync_outputs(stn_run *r, stn_result *res) {
    int n = 2 * r->d->nfields + r->d->nrecords, rc = 0;
    for (int k = 0; stn_par_size() > 1 && k < r->d->nrecords; k++) /* (collective: every rank, always) */
        if (r->writers[2 * r->d->nfields + k]) { /* each rank sampled the points of its own slices */
            stn_par_or_to_root(r->rec[k], record_slot_bytes(r, k));
            if (stn_par_rank() > 0)
                stn_npy_writer_expect(r->writers[2 * r->d->nfields + k], 0);
        }
    for (int k = 0; k < r->d->nrecords; k++) /* an off-grid point's corners summed, every corner in */
        stn_record_combine(r, k);
    for (int k = 0; rc == 0 && k < r->d->nrecords && stn_par_rank() == 0; k++) { /* all steps' samples */
        stn_npy_writer *w = r->writers[2 * r->d->nfields + k];
        if (w)
            rc = stn_npy_writer_pwrite(w, r->rec[k], (size_t)(r->o->steps * (int64_t)stn_record_bytes(r, k)),
                                       0, &res->st);
    }
    for (int s = 0; rc == 0 && s < n; s++)
        if (r->writers[s])
            rc = stn_npy_writer_finish(r->writers[s]);
    for (int k = 0;
         rc == 0 && r->snap && (stn_par_rank() == 0 || stn_h5_parallel(r->snap)) && k < r->d->nrecords;
         k++) /* (rank 0's samples; under parallel HDF5 every rank makes the dataset) */
        rc = stn_h5_record(r->snap, r->d->records[k].name, r->rec[k], r->o->steps, stn_record_points(r, k),
                           &res->st);
    if (stn_par_size() > 1 && stn_par_any(rc) && rc == 0)
        rc = stn_error(-EIO, "another rank failed to write its part of the outputs (its error is above)");
    return rc;
}

int stn_outputs_any(const stn_run *r) {
    for (int s = 0; r->writers && s < 2 * r->d->nfields + r->d->nrecords; s++)
        if (r->writers[s])
            return 1;
    return 0;
}

int stn_outputs_commit(stn_run *r, stn_result *res, const stn_ooc_result *plan, stn_afile *report) {
    double t0 = stn_now();
    int n = 2 * r->d->nfields + r->d->nrecords;
    int rc = sync_outputs(r, res);
    if (rc == 0) /* (one process: program/h5files.c) */
        rc = stn_h5files_write(r, &res->st);
    stn_stats_add_time(&res->st, STN_PHASE_WRITE, t0);
    if (stn_outputs_any(r))
        res->export_seconds += stn_now() - t0;
    if (rc == 0 &&
        stn_h5_parallel(r->snap)) { /* (collective: every rank closes the file, rank 0 renames it) */
        rc = stn_h5_close(r->snap, r->o->steps);
        if (stn_par_any(rc) && rc == 0)
            rc = stn_error(-EIO, "another rank failed to close --save-to %s (its error is above)",
                           r->o->save_to);
    }
    if (rc == 0 && stn_par_size() > 1)
        gather_ranks(r, res);
    if (rc == 0 && stn_par_rank() > 0)
        return 0; /* rank 0 renames (stn_outputs_abort closes the joined files, unlinking nothing) */
    if (rc == 0 && report->tmp) /* the report, complete and synced before any output is renamed */
        rc = stn_report_fill(r, res, plan, report);
    for (int s = 0; rc == 0 && s < n; s++) /* (only a failing rename, after the others, can leave some) */
        if (r->writers[s] && !stn_h5files_owns(r, s)) { /* (an HDF5 dataset's .npy: removed by the abort) */
            rc = stn_npy_writer_commit(r->writers[s]);
            r->writers[s] = NULL;
        }
    if (rc == 0 && r->snap) { /* (its temporary removed on failure) */
        rc = stn_h5_commit(r->snap, r->o->steps);
        r->snap = NULL;
    }
    if (rc == 0)
        rc = stn_h5files_commit(r);
    return rc;
}

int stn_report_commit(const stn_run *r, const stn_result *res, const stn_ooc_result *plan,
                      stn_afile *report) {
    if (!report->tmp || stn_par_rank() > 0)
        return 0;
    int rc = stn_afile_rewind(report); /* (its first fill proved the room; the scratch files freed more) */
    if (rc == 0)
        rc = stn_report_fill(r, res, plan, report);
    if (rc == 0 && (rc = stn_afile_commit(report)) != 0)
        rc = stn_error(rc, "cannot write the report: %s", stn_errmsg());
    if (rc)
        rc = stn_error(rc, "the outputs are complete, but %s", stn_errmsg());
    return rc;
}

void stn_outputs_abort(stn_run *r, stn_afile *report) {
    stn_h5_abort(r->snap);
    r->snap = NULL;
    for (int s = 0; r->writers && s < 2 * r->d->nfields + r->d->nrecords; s++) {
        stn_npy_writer_abort(r->writers[s]);
        r->writers[s] = NULL;
    }
    if (report && report->path) /* (an stn_afile never opened is zeroed: its fd 0 is not its own) */
        stn_afile_abort(report);
}
