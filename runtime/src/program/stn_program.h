/*
 * stn_program.h -- the program's layer (program/): a run from options to report around its engine
 * (setup.c), its files before and after (runfiles.c), what it prints (summary.c), the run held open
 * (sim.c: the embedding API, which the program's main, program.c, runs too).  Private to those files.
 */
#ifndef STN_PROGRAM_H
#define STN_PROGRAM_H

#include "engines/stn_engine.h"
#include "io/stn_gridio.h"
#include "io/stn_hdf5.h"
#include "mpi/stn_par.h"
#include "report/stn_report.h"

/* A run: what it is given, its warnings, and what the engine gives back. */
typedef struct stn_program_run {
    stn_run in;
    stn_log log;
    stn_result res;
    stn_ooc_result plan;   /* an engine that plans (out of core) only */
    stn_afile report;      /* --report's temporary, created before the run */
    int64_t first_step;    /* the step the engine's levels held at open (--resume: after the saved sweeps) */
    uint64_t snap_written; /* the snapshots' bytes this process writes from there (stn_engine_snap_written) */
} stn_program_run;

/* ------------------------------------------------------------------ setup.c */

/* The run of descriptor d with options o (zeroed first): the machine (discovered, or --machine), the
 * budget (--mem, else the machine's, shared by the ranks on it), the view and the log. */
int stn_program_setup(stn_program_run *pr, const stn_program_desc *d, const stn_opts *o, double t_start);
/* Everything before the engine: the inputs looked at, the series, points and `along` arrays read, the
 * outputs' temporaries created, the device found (an engine that needs it). */
int stn_program_prepare(stn_program_run *pr);
/* After the engine's finish (rc: how it went), before its close: the report written (a full disk fails
 * here), then the outputs renamed into place; every rank agrees on the outcome (rc), so that the
 * engines close keeping their scratch files for --resume unless every output is in place: a run killed
 * before its outputs' renames resumes with the export alone. */
int stn_program_commit(stn_program_run *pr, int rc);
/* After the engine's close (rc: stn_program_commit's): the report written again with the scratch files'
 * removal and renamed into place, or every temporary removed after a failure; the program's summary
 * line (`program`: the program's run, not a simulation's). */
int stn_program_finish(stn_program_run *pr, int rc, int program);
/* The run's bytes beside its engine's, which stn_program_finish adds to the prediction: the series,
 * points and `along` files read once, the records (rank 0) and the snapshots (stn_engine_snap_written)
 * written. */
void stn_program_extra_io(const stn_program_run *pr, uint64_t *rd, uint64_t *wr);
void stn_program_free(stn_program_run *pr);

/* ------------------------------------------------------------------ runfiles.c: the run's files */

/* The .npy shape of the run's grid: (nz, ny, nx), (ny, nx) or (nx,), the pointer into shape. */
int64_t *stn_npy_shape(const stn_run *r, int64_t shape[3]);
/* Every --init file of a field level looked at (header, type, shape) before anything is allocated. */
int stn_check_inputs(stn_run *r);

/* h5files.c: HDF5 datasets among --init and --out (FILE.h5:/DSET[I]).  prepare: each --init dataset read
 * into a temporary .npy that init_path then names (counted in st), each --out dataset's hidden .npy named
 * in out_path; refused under MPI with several ranks, and an --out into an input file or the --save-to
 * file.  bytes: the data bytes they read and write more.  owns: whether writer s is an --out dataset's
 * (never committed as a .npy).  write: after the outputs are synced, the datasets written into their
 * files' temporaries (counted in st).  commit: renamed into place.  free: the temporaries removed, the
 * paths as given. */
int stn_h5files_prepare(stn_run *r, stn_stats *st);
void stn_h5files_bytes(const stn_run *r, uint64_t *rd, uint64_t *wr);
int stn_h5files_owns(const stn_run *r, int s);
int stn_h5files_write(stn_run *r, stn_stats *st);
int stn_h5files_commit(stn_run *r);
void stn_h5files_free(stn_run *r);
/* Before the engine: each --out's temporary created with its size reserved (r->writers, collective
 * under MPI), and the report's temporary (`report`, zeroed first; rank 0, with --report) created
 * empty, so that a target that cannot be written fails before anything is computed. */
int stn_outputs_open(stn_run *r, stn_afile *report);
/* Bytes of one step's samples of record k. */
uint64_t stn_record_bytes(const stn_run *r, int k);
/* After a successful engine: the records written, every output synced, (MPI) the ranks' figures
 * gathered on rank 0, the report written and synced (a full disk fails here, with nothing renamed),
 * and only then the outputs renamed into place; a failure leaves none of them (only a failing
 * rename, after the others).  The report stays a temporary: stn_report_commit. */
int stn_outputs_commit(stn_run *r, stn_result *res, const stn_ooc_result *plan, stn_afile *report);
/* After the outputs' renames and the engine's close (its scratch files removed, and the time that
 * took): the report written again, now whole, and renamed into place (rank 0). */
int stn_report_commit(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, stn_afile *report);
/* Whether the run writes any --out file (a field's level or a record). */
int stn_outputs_any(const stn_run *r);
/* Whatever is left open, removed (temporaries unlinked; joined files closed). */
void stn_outputs_abort(stn_run *r, stn_afile *report);

/* ------------------------------------------------------------------ summary.c: what a run prints */

/* A warning for each out-of-core option an engine that plans no blocks (in-core, mmap) ignores. */
void stn_note_ignored(stn_run *r);
/* The program's lines on stderr (none with --quiet): the out-of-core plan once chosen (blocks, who
 * chose them, the DRAM against the budget, the predicted bytes and seconds), and at the end the
 * time, the rate, the bytes moved against the model's and the peak memory. */
void stn_summary_plan(const stn_run *r, const stn_result *res, const stn_ooc_result *plan);
void stn_summary_end(const stn_run *r, const stn_result *res);
/* The program's main only: on SIGINT or SIGTERM print what is left of the run (an engine that
 * resumes: that --resume continues it from the last committed sweep) and die of the signal as before;
 * no handler replaces an ignored signal.  disarm restores the previous handlers. */
void stn_interrupt_arm(const stn_run *r);
void stn_interrupt_disarm(void);

/* ------------------------------------------------------------------ sim.c */

/* The horizon of a simulation opened without --steps: the plan's, never reached in practice. */
#define STN_SIM_OPEN_STEPS ((int64_t)1 << 40)

struct stn_sim {
    stn_program_run pr;
    stn_opts o;
    int argc;
    char **argv;           /* copies: the options point into them (NULL: the program's own argv) */
    int program;           /* the program's main: the one advance is the whole run */
    double t_job;          /* the program's main: the process's start (stn_now's clock); 0: at open */
    stn_engine *eng;       /* the engine --mode names */
    int64_t done;          /* steps advanced */
    int failed;            /* an advance failed: the levels are partly stepped */
    uint64_t ckpt_written; /* the bytes of the checkpoints' files (the IO model's) */
    int saved_threads;     /* the caller's OpenMP threads, while a call runs with --threads */
    stn_program_desc desc; /* the descriptor, its reach at least its halo */
    char dir[4096];        /* --dir with %r replaced by the rank (MPI) */
};

/* A simulation with the descriptor (checked) and no options yet. */
int stn_sim_new(const stn_program_desc *given, stn_sim **out);
/* The run of the parsed options: inputs checked, series, points and `along` arrays read, outputs'
 * temporaries created, the engine opened (out of core: planned, or only the plan printed). */
int stn_sim_start(stn_sim *s, double t_start);

#endif /* STN_PROGRAM_H */
