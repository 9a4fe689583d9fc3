/* ooc_api.c -- the out-of-core engine held open (its table of operations, stn_ooc_engine): for the
 * program's main and the simulation API alike.  The executor is ooc_sweep.c's, the set-up
 * ooc_setup.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"

#include "io/stn_hdf5.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ the engine held open
 *
 * The one way to run the engine, for the program (stn_program_main) and for the simulation API
 * alike.  The state between calls is the source set of the next sweep, as after a committed
 * sweep: the first sweep's sources until then (--init files, init expressions, zero), or scratch
 * set sweeps % 2 (alg2: its in-place files).  advance(n) runs ceil(n / bt) sweeps of the plan's
 * blocks (the last one shorter), the step index going on.  The inputs are imported into their
 * scratch files when first needed (the first sweep, or a write before it); a write first puts the
 * state levels into scratch set 0 if no sweep has (stn_ooc_materialize), then patches the rows the
 * box touches.  The IO model is the sweeps that ran, each as long as it was, the import, the
 * records' samples and the export of --out, plus what the boxes and the materialization moved. */
struct stn_ooc {
    ooc e;
    /* a 1d grid: the engine runs on its rows (folded: the fold, a 2d descriptor of one-row halos,
     * the options in rows) or, periodic, as one row; e.r and e.d point here */
    stn_run_copy c;                     /* a rank's slab */
    stn_run_copy fold;                  /* a 1d grid's rows (under MPI, c is a slab of them) */
    int tuned;                          /* the ranks' blocks came from tune_ranks */
    uint64_t xchg_read, xchg_written;   /* the ghosts' exchanges this process made, as modelled */
    int program;                        /* opened by the program: the one advance is the whole run */
    int plan_only;                      /* --plan-only: printed, nothing to run */
    int64_t sweeps, steps;              /* done, including those saved before (--resume) */
    int64_t first;                      /* the sweeps done before open (--resume) */
    int redo;                           /* --resume under MPI with the way down deferred: exchange first */
    uint64_t extra_read, extra_written; /* boxes and the materialization, as the model counts them */
    uint64_t swept_read, swept_written; /* the sweeps this process ran, each as long as it was */
    uint64_t swept_in_place;            /* and what they read in place (--tier pmem's inputs) */
    uint64_t rec_read, rec_written;     /* the records file's, as the model counts them */
};

/* A 1d grid's run (docs/design/014): folded into rows of W cells (stn_fold) that stream as a 2d
 * grid's do, in blocks of whole rows with a halo and skew of one row; or, periodic along x (the wrap
 * moves by the interior's width, not whole rows), one row that is one block.  The engine gets a
 * copy of the run with the rows' geometry: view, sizes, blocks and a descriptor whose halo and
 * reach are one row; the kernels keep their 1d view (stn_step, stn_run_boundary, stn_run_init).
 * The inputs along x stay in DRAM, whole: the plan counts them (stn_run.held). */
static int fold_run(stn_ooc *s, const stn_run *r) {
    int rc = stn_fold_run(r, (size_t)r->hw.block.value, &s->fold);
    s->e.r = &s->fold.run;
    return rc;
}

/* One rank's part under MPI (docs/design/018, 019): the run on it (stn_ooc_part_run: sizes, view and
 * --block local, a descriptor whose halo on a side cut between ranks is the step's reach, the frozen
 * layer the engine never computes, and the rank's own file names NAME.rK.*), with the blocks the ranks
 * tuned (blk) or the command line's. */
static int part_run(stn_ooc *s, const stn_run *r, int64_t bt_ghost, const int64_t *blk) {
    int rc = stn_ooc_part_run(r, bt_ghost, blk, &s->c, s->e.res);
    if (rc == 0)
        s->e.r = &s->c.run;
    return rc;
}

static void ooc_close(void *state, int keep);

/* --plan-only: the plan and what it will move, on one line. */
static void print_plan(const ooc *e) {
    const stn_ooc_result *p = e->out;
    char mem[32];
    printf("by %" PRId64 " bz %" PRId64 " bt %" PRId64 " strip %s tuner %s predicted_bytes_read %" PRIu64
           " predicted_bytes_written %" PRIu64 " mem_plan_bytes %" PRIu64 " (%s) mem_budget_bytes %" PRIu64
           "\n",
           p->blk[0], p->blk[1], p->blk[2], p->strip, p->chooser, e->res->predicted_read,
           e->res->predicted_written, e->plan.mem_bytes, stn_fmt_bytes(mem, sizeof mem, e->plan.mem_bytes),
           e->r->mem_budget);
}

static int ooc_open(const stn_run *r, stn_result *res, stn_ooc_result *out, int program, void **sp) {
    *sp = NULL;
    stn_ooc *s = calloc(1, sizeof *s);
    if (!s)
        return stn_error(-ENOMEM, "out of memory");
    ooc *e = &s->e;
    s->program = program;
    e->fs.records_fd = -1;
    e->fs.lock_fd = -1;
    e->r = r;
    e->d = r->d;
    e->res = res;
    e->out = out;
    int rc = 0;
    if (stn_dims(r->d) == 1) { /* a 1d grid: its rows (and under MPI each rank a slab of them) */
        rc = fold_run(s, r);
        if (rc == 0 && stn_par_size() > 1 && !s->fold.run.fold.W)
            rc = stn_error(-ENOTSUP,
                           "%d MPI ranks: this 1d grid is periodic, so it runs as one row, which the "
                           "ranks cannot split",
                           stn_par_size());
        r = &s->fold.run;
    }
    if (rc == 0 && stn_par_size() > 1) {
        int64_t blk[3], ghost = r->o->block[2];
        int tuned = !r->o->have_block, saved = 0;
        if (tuned && r->o->resume) { /* the blocks this rank's state file saved, if every rank has one */
            char path[4096];
            stn_saved_plan sv;
            snprintf(path, sizeof path, "%s/%s.r%d.ooc-state", r->o->dir, r->d->name, stn_par_rank());
            saved = stn_ooc_saved_plan(path, &sv) == 1;
            if (!stn_par_any(!saved)) {
                blk[0] = sv.by, blk[1] = sv.bz, blk[2] = sv.bt;
                ghost = stn_par_min(sv.bt);
            }
            stn_error_clear();
            saved = !stn_par_any(!saved);
        }
        if (tuned && !saved)
            rc = stn_tune_ranks(r, res, out, blk, &ghost);
        if (rc == 0) /* (a resumed part's setup agrees with the others': all reach it, or none) */
            rc = stn_par_agree(part_run(s, r, ghost, tuned ? blk : NULL), "to cut its part");
        s->tuned = tuned;
    }
    if (rc) {
        ooc_close(s, 1);
        return rc;
    }
    r = e->r; /* (a 1d grid's folded run, or a rank's slab) */
    e->d = r->d;
    rc = stn_engine_arrays(r->d, sizeof *e->f, (void **)&e->f, &e->src, &e->dst, "out-of-core");
    for (int i = 0; rc == 0 && i < r->d->nfields; i++)
        e->f[i].npy_fd[0] = e->f[i].npy_fd[1] = e->f[i].npy_dfd[0] = e->f[i].npy_dfd[1] = -1;
    int64_t first = 0;
    if (rc == 0)
        rc = stn_ooc_setup(e, &first);
    if (rc == 0 && s->tuned) /* (the ranks' tuning handed its blocks on as if given) */
        out->chooser = stn_tuner_names[r->o->tuner < 0 ? STN_TUNER_BLK : r->o->tuner];
    if (rc == 0 && r->o->plan_only) {
        print_plan(e);
        s->plan_only = 1;
    }
    if (rc == 0 && !program && e->plan.nsweeps < 1)
        rc = stn_error(-EINVAL, "internal error: a simulation opened for no sweep");
    s->first = s->sweeps = first; /* --resume: the state of the sweeps saved */
    s->redo = rc == 0 && first > 0 && e->gh.buf && e->plan.nsweeps > first;
    s->steps = first > 0 ? e->steps_resumed : 0;
    e->model.imported = first > 0; /* (resumed: the inputs are in their files since the first sweep) */
    uint64_t row = e->fs.records_fd >= 0 ? stn_record_row_bytes(r) : 0;
    s->rec_read = (uint64_t)s->steps * row; /* read back by open_records */
    e->plan.nsweeps = first;
    if (rc) { /* (a resumable run's files stay, as they were) */
        ooc_close(s, 1);
        return rc;
    }
    *sp = s;
    return 0;
}

static int64_t ooc_steps_done(const void *state) { return ((const stn_ooc *)state)->steps; }

/* The inputs into their scratch files (and alg2's state into its in-place files), once, before
 * the first sweep or a write; the model counts it from then on. */
static int ensure_imported(stn_ooc *s) {
    ooc *e = &s->e;
    if (e->model.imported)
        return 0;
    int rc = stn_ooc_import_inputs(e);
    if (rc == 0 && e->alg2)
        rc = stn_ooc_import_alg2(e);
    if (rc == 0)
        e->model.imported = 1;
    return rc;
}

static int ooc_advance(void *state, int64_t first, int64_t steps) {
    stn_ooc *s = state;
    ooc *e = &s->e;
    (void)first; /* (the step index goes on from the state's: s->steps) */
    if (s->plan_only)
        return stn_error(-EINVAL, "internal error: advance after --plan-only");
    if (steps <= 0)
        return 0;
    stn_progress prog;
    stn_progress_start(&prog, e->d->name, steps, (double)stn_grid_cells(e->r->o), e->r->o->quiet);
    double t0 = stn_now();
    int rc = ensure_imported(s);
    if (e->r->part)
        rc = stn_ooc_agree(e, rc, "importing its inputs");
    if (rc == 0 && e->r->part && stn_par_any(s->redo)) { /* (every rank: the same resumed sweep) */
        uint64_t m, x = stn_ooc_ghosts_bytes(e, &m);
        rc = stn_ooc_agree(e, stn_ooc_ghosts_swap(e, s->sweeps % 2, &e->res->msg_sent, 0),
                           "swapping the ghosts again");
        s->xchg_read += x, s->xchg_written += x, e->res->msg_predicted += m;
        s->redo = 0;
    }
    uint64_t row = e->fs.records_fd >= 0 ? stn_record_row_bytes(e->r) : 0;
    double tl = stn_now(); /* (the sweeps' own seconds, for ooc_history.c: the import is the model's xfer) */
    for (int64_t done = 0; rc == 0 && done < steps;) {
        int64_t T = steps - done < e->plan.bt ? steps - done : e->plan.bt;
        e->plan.nsweeps = s->sweeps + 1; /* the sources of sweep s: its inputs are in scratch */
        e->lvl0 = e->alg2 ? s->steps : 0;
        e->prog = &prog;
        e->steps_before = s->steps;
        int durable = stn_ooc_commits(e, s->program, s->steps + T >= e->r->o->steps);
        stn_ooc_predict_sweep(&e->model, &e->plan, s->sweeps, T, &s->swept_read, &s->swept_written);
        s->swept_in_place += stn_ooc_in_place_sweep(&e->model, &e->plan);
        double ts = stn_now(), cs = e->res->st.seconds[STN_PHASE_COMPUTE];
        rc = stn_ooc_sweep(e, s->sweeps, T, durable);
        int rcg = stn_h5_sweep_end(e->r->snap, &e->res->st); /* (rank 0 gathering: every piece taken) */
        rc = rc ? rc : rcg;
        int rcl = stn_ooc_ghosts_land(e, rc == 0); /* (landed by now unless the sweep failed first) */
        rc = stn_ooc_agree(e, rc ? rc : rcl, "in its sweep");
        if (rc == 0 && e->r->part && s->steps + T < e->r->o->steps) { /* the next sweep's ghosts */
            uint64_t m, x = stn_ooc_ghosts_bytes(e, &m);
            /* (deferred when every rank's plan runs whole planes with the buffers) */
            int defer = !stn_par_any(e->gh.buf == NULL);
            e->res->overlapped = defer;
            rc = stn_ooc_agree(e, stn_ooc_ghosts_swap(e, (s->sweeps + 1) % 2, &e->res->msg_sent, defer),
                               "swapping the ghosts");
            s->xchg_read += x, s->xchg_written += x, e->res->msg_predicted += m;
        }
        if (rc == 0 && durable && row) { /* the sweep's samples, before its state commits */
            rc = stn_ooc_records_io(e, 1, s->steps, s->steps + T);
            s->rec_written += (uint64_t)T * row;
        }
        if (rc == 0 && durable && e->r->snap) /* the sweep's snapshots, before its state commits */
            rc = stn_h5_flush(e->r->snap);
        if (rc == 0 && durable && !e->alg2) /* alg2 updates its files in place: no state to resume */
            rc = stn_ooc_save_state(e, s->sweeps + 1);
        /* every rank's commit before any rank's next sweep, which overwrites the file set of the state
         * before: a rank killed before its commit leaves the others' set of that state intact, for the
         * --resume that goes back to it (a clean-clone CI run caught a fast rank's next sweep begun;
         * test_mpi holds a rank in its commit to show it every time) */
        if (durable)
            rc = stn_ooc_agree(e, rc, "committing its sweep");
        e->plan.nsweeps = s->sweeps;
        if (rc) {
            stn_ooc_ghosts_land(e, 0); /* (every rank posted its half: the wait ends) */
            break;
        }
        s->sweeps++, s->steps += T, done += T;
        e->plan.nsweeps = s->sweeps;
        e->hist_cells += (double)stn_grid_cells(e->r->o) * (double)T;
        e->hist_compute += e->res->st.seconds[STN_PHASE_COMPUTE] - cs;
        if (done < steps) /* the measured rates, and a re-plan of the rest (ooc_refine.c) */
            rc = stn_ooc_refine(e,
                                &(ooc_measured){s->sweeps - 1, T, s->steps, steps - done, stn_now() - ts,
                                                e->res->st.seconds[STN_PHASE_COMPUTE] - cs,
                                                (double)stn_grid_cells(e->r->o) * (double)T},
                                s->program);
        uint64_t pss = stn_pss_bytes(); /* the rings are fully touched by now */
        if (pss > e->res->peak_pss)
            e->res->peak_pss = pss;
        stn_progress_step(&prog, done);
    }
    if (rc == 0) /* (a simulation may read its boxes next: the ghosts in their files) */
        rc = stn_ooc_ghosts_land(e, 1);
    e->res->loop_seconds += stn_now() - t0;
    e->hist_wall += stn_now() - tl;
    stn_progress_end(&prog);
    return rc;
}

static int sim_box_io(stn_ooc *s, int f, int level, int write, const int64_t lo[3], const int64_t hi[3],
                      char *buf, const int64_t st[3]) {
    stn_ooc_boxio b = {.f = f, .level = level, .write = write, .buf = buf};
    for (int k = 0; k < 3; k++)
        b.lo[k] = lo[k], b.hi[k] = hi[k], b.st[k] = st[k];
    int rc = stn_ooc_box_io(&s->e, &b);
    s->extra_read += b.model_read;
    s->extra_written += b.model_written;
    return rc;
}

static int ooc_box(void *state, const stn_box_io *bx) {
    stn_ooc *s = state;
    ooc *e = &s->e;
    int f = bx->f, level = bx->level, write = bx->write;
    const int64_t *lo = bx->lo, *hi = bx->hi, *st = bx->st;
    char *buf = bx->buf;
    if (e->alg2 && (write || s->sweeps > 0)) /* (before its first sweep the levels are their sources') */
        return stn_error(-ENOTSUP, "--schedule alg2 keeps its levels in place, in the paper's layout: a "
                                   "simulation's boxes need the reference schedule (ref)");
    int rc = write ? ensure_imported(s) : 0;
    if (rc == 0 && write && s->sweeps == 0 && e->f[f].m->state && e->f[f].m->first[0] != STN_SRC_SCRATCH)
        rc = stn_ooc_materialize(e, &s->extra_read, &s->extra_written);
    if (rc == 0 && write && !e->f[f].m->state && e->f[f].m->input != STN_SRC_SCRATCH) {
        /* an input of init expressions or zero is computed where it is read: written, it needs a file */
        char path[4096];
        stn_ooc_scratch_name(path, sizeof path, e, f, 0, 0);
        rc = stn_ooc_open_grid(e, &e->f[f].scratch[0][0], path, e->r->view.nz, STN_GRIDFILE_CREATE);
        if (rc == 0)
            stn_ooc_tier_note(e, &e->f[f].scratch[0][0]);
        if (rc == 0)
            rc = stn_ooc_make_input(e, f, &s->extra_written);
    }
    const stn_fold *fo = &e->r->fold;
    if (!fo->W)
        return rc ? rc : sim_box_io(s, f, level, write, lo, hi, buf, st);
    /* a folded 1d grid: cells [lo, hi) are a partial row, whole rows, a partial row */
    for (int64_t a = lo[0], b; rc == 0 && a < hi[0]; a = b) {
        int64_t row = (a + fo->P) / fo->W, col = (a + fo->P) % fo->W, whole = (hi[0] + fo->P) / fo->W;
        b = col           ? hi[0] < (row + 1) * fo->W - fo->P ? hi[0] : (row + 1) * fo->W - fo->P
            : whole > row ? whole * fo->W - fo->P
                          : hi[0];
        int64_t end = (b - 1 + fo->P) / fo->W + 1;
        int64_t plo[3] = {col, row, 0},
                phi[3] = {end - row > 1 ? fo->W : (b - 1 + fo->P) % fo->W + 1, end, 1};
        int64_t pst[3] = {st[0], st[0] * fo->W, 0};
        rc = sim_box_io(s, f, level, write, plo, phi, buf + (a - lo[0]) * st[0] * e->d->elem_size, pst);
    }
    return rc;
}

/* The models of what ran so far: the IO model (with or without the --out exports) and the time model. */
static int account(stn_ooc *s, int exports) {
    ooc *e = &s->e;
    if (s->plan_only) /* the plan's prediction for the whole run stands */
        return 0;
    e->plan.steps = s->steps;
    int out[1024][2]; /* before the end (a report so far): the --out exports are not done yet */
    for (int i = 0; !exports && i < e->d->nfields && i < 1024; i++)
        for (int l = 0; l < 2; l++)
            out[i][l] = e->fsrc[i].out[l], e->fsrc[i].out[l] = 0;
    /* the model of what ran: the import (unless resumed), the sweeps this process ran (stn_ooc_advance
     * added each), the records' samples, the --out exports from the current state; and the boxes */
    stn_ooc_plan now = e->plan; /* nsweeps = the sweeps done: stn_ooc_predict gives the exports alone */
    e->res->predicted_read = e->res->predicted_written = 0;
    stn_ooc_predict(&e->model, &now, now.nsweeps, &e->res->predicted_read, &e->res->predicted_written);
    if (e->model.imported && s->first == 0)
        stn_ooc_predict_import(&e->model, &e->plan, &e->res->predicted_read, &e->res->predicted_written);
    e->res->predicted_read += s->swept_read + s->extra_read + s->rec_read + s->xchg_read;
    e->res->predicted_in_place = s->swept_in_place;
    e->res->predicted_written += s->swept_written + s->extra_written + s->rec_written + s->xchg_written;
    int rc = stn_ooc_model_time(e, s->first);
    stn_ooc_dirs_computed(e);
    if (e->res->nreplans > 0) /* (re-planned: the prediction the run started with, as the plan line said) */
        e->res->time = e->time0;
    for (int i = 0; !exports && i < e->d->nfields && i < 1024; i++)
        for (int l = 0; l < 2; l++)
            e->fsrc[i].out[l] = out[i][l];
    return rc;
}

/* The result so far for a report: the models of what ran, and the series, points and `along` inputs read
 * before the engine (which the program adds to the models at the end). */
static int ooc_account(void *state, stn_result *out) {
    stn_ooc *s = state;
    int rc = account(s, 0);
    const stn_run *r = s->e.r;
    *out = *s->e.res;
    out->predicted_read += r->inputs.series_bytes + r->inputs.points_bytes + r->inputs.along_bytes;
    return rc;
}

static int ooc_finish(void *state) {
    stn_ooc *s = state;
    if (s->plan_only)
        return 0;
    int rc = account(s, 1);
    if (rc == 0 && s->program && s->steps == s->e.r->o->steps)
        stn_ooc_history_note(&s->e, s->first, s->steps - s->e.steps_resumed); /* (for later runs' models) */
    return rc ? rc : stn_ooc_export(&s->e);
}

static void ooc_close(void *state, int keep) {
    stn_ooc *s = state;
    if (!s)
        return;
    ooc *e = &s->e;
    if (e->gh.pending) /* (the messages in flight end before their buffer goes) */
        stn_par_wait(&e->gh.req), e->gh.pending = 0;
    if (e->q)
        stn_aio_wait_all(e->q, &e->res->st);
    double t0 = stn_now(); /* (the file system frees the scratch files' blocks as their descriptors close) */
    if (e->f && !keep && !s->plan_only) /* (--plan-only touches no file of --dir) */
        stn_ooc_remove_scratch(e);
    e->res->engine_bytes = stn_peak_allocated_bytes();
    stn_ooc_free(e);
    e->res->remove_seconds = stn_now() - t0;
    stn_run_copy_free(&s->fold);
    stn_run_copy_free(&s->c);
    free(s);
}

/* The out-of-core engine (docs/out-of-core.md), held open for the program's main and the simulation API
 * alike: open plans for r->o->steps (Blk-Tune; with --resume the saved plan, going on from the state
 * file's sweeps) and opens the scratch and records files, with --plan-only it prints the plan and opens
 * nothing; advance runs sweeps of the plan's blocks from the current state (the step index going on),
 * each committed to the state file; box moves a box of the current state between the files and a
 * caller's buffer; finish sets the IO and time model of what ran and exports every --out; close
 * removes the scratch files (unless `keep`: after a failure, for --resume).  (Its name, what it has,
 * then open, steps_done, advance, box, account, finish and close: stn_engine_ops' order.) */
static int ooc_saves(const void *state) { return stn_ooc_snap_saves(&((const stn_ooc *)state)->e); }
static int ooc_put_levels(void *state, int64_t k) {
    stn_ooc *s = state;
    ooc *e = &s->e;
    if (e->r->fold.W || (e->r->part && (!stn_h5_parallel(e->r->snap) || stn_part_rings(e->r->part))))
        return 1; /* (read through box: a folded grid's cells are not a chunk's, a part without parallel HDF5
                   * sends its cells to rank 0, and on a ring of ranks a part also puts the cells the
                   * boundary layer copies; alg2's levels at open are its sources', as ref's) */
    return stn_ooc_snap_levels(e, k, &s->extra_read);
}
static const struct stn_part *ooc_part(const void *state, const stn_fold **fold) {
    const stn_ooc *s = state;
    *fold = s->c.part && s->e.r->fold.W ? &s->e.r->fold : NULL;
    return s->c.part;
}

const stn_engine_ops stn_ooc_engine = {"ooc",       {.plans = 1, .device = 1, .resumes = 1, .splits = 1},
                                       ooc_open,    ooc_steps_done,
                                       ooc_advance, ooc_box,
                                       ooc_account, ooc_finish,
                                       ooc_close,   ooc_saves,
                                       ooc_part,    ooc_put_levels};
