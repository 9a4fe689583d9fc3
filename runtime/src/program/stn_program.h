/*
 * stn_program.h -- the program's layer (program/): a run from options to report around its engine
 * (setup.c), its files before and after (outputs.c), the run held open (sim.c: the embedding API, which
 * the program's main, program.c, runs too).  Private to those files.
 */
#ifndef STN_PROGRAM_H
#define STN_PROGRAM_H

#include "engines/stn_engine.h"
#include "io/stn_gridio.h"
#include "mpi/stn_par.h"
#include "report/stn_report.h"

/* A run: what it is given, its warnings, and what the engine gives back. */
typedef struct stn_program_run {
    stn_run in;
    stn_log log;
    stn_result res;
    stn_ooc_result plan; /* an engine that plans (out of core) only */
} stn_program_run;

/* ------------------------------------------------------------------ setup.c */

/* The run of descriptor d with options o (zeroed first): the machine (discovered, or --machine), the
 * budget (--mem, else the machine's, shared by the ranks on it), the view and the log. */
int stn_program_setup(stn_program_run *pr, const stn_program_desc *d, const stn_opts *o, double t_start);
/* Everything before the engine: the inputs looked at, the series, points and `along` arrays read, the
 * outputs' temporaries created, the device found (an engine that needs it). */
int stn_program_prepare(stn_program_run *pr);
/* After the engine (rc: how it went): the outputs committed, or removed after a failure; the report. */
int stn_program_finish(stn_program_run *pr, int rc);
void stn_program_free(stn_program_run *pr);

/* ------------------------------------------------------------------ outputs.c */

/* The shape of a level as a .npy: (nz, ny, nx), (ny, nx) or (nx,) (a 1d grid is one row). */
int64_t *stn_run_npy_shape(const stn_run *r, int64_t shape[3]);
/* Look at every --init file before allocating anything: a wrong file fails in milliseconds. */
int stn_run_check_inputs(stn_run *r);
/* Create every output's temporary now, so that an unwritable directory or a full disk fails before the
 * computation rather than after it. */
int stn_run_open_outputs(stn_run *r);
/* Bytes of one step's samples of record k. */
uint64_t stn_run_record_bytes(const stn_run *r, int k);
/* Rename the outputs only once all of them are complete and synced (under MPI every rank's part). */
int stn_run_commit_outputs(stn_run *r, stn_result *res);
/* Remove whatever output is left (after a failure). */
void stn_run_abort_outputs(stn_run *r);

/* ------------------------------------------------------------------ sim.c */

/* The horizon of a simulation opened without --steps: the plan's, never reached in practice. */
#define STN_SIM_OPEN_STEPS ((int64_t)1 << 40)

struct stn_sim {
    stn_program_run pr;
    stn_opts o;
    int argc;
    char **argv;           /* copies: the options point into them (NULL: the program's own argv) */
    int program;           /* the program's main: the one advance is the whole run */
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
