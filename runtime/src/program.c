/* program.c -- stn_program_main: the generated program from command line to report.
 *
 * Exit statuses: 0 success (also --help, --version), 1 run-time failure, 2 command-line
 * mistake.  Everything a run allocates is released before returning, and nothing global
 * survives it (counters and peaks are reset at the start), so a test may call this function
 * many times in one process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_gridio.h"
#include "stn_run.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_error(const stn_program_desc *d, const char *msg) {
    stn_progress_break(); /* (a progress line rewritten on a terminal ends first) */
    fprintf(stderr, "%s: error: %s\n", d && d->name ? d->name : "stencil", msg);
    fflush(stderr);
}

/* ------------------------------------------------------------------ the run */

/* A run: what it is given, its warnings, and what the engine gives back. */
typedef struct program_run {
    stn_run in;
    stn_log log;
    stn_result res;
    stn_ooc_result plan; /* out-of-core only */
    stn_afile report;    /* --report's temporary, created before the run */
} program_run;

static int setup_run(program_run *pr, const stn_program_desc *d, const stn_opts *o, double t_start) {
    memset(pr, 0, sizeof *pr);
    stn_run *r = &pr->in;
    pr->log = (stn_log){d->name, o->quiet, 0, {0}};
    r->d = d;
    r->o = o;
    r->log = &pr->log;
    r->t_start = t_start;
    r->view = (stn_view){o->size[0], o->size[1], o->size[2], o->size[0], o->size[0] * o->size[1], 0, 0, 0};
    r->grid_bytes = (uint64_t)stn_grid_cells(o) * (uint64_t)d->elem_size;
    int rc = o->machine ? stn_hw_load_machine(o->machine, &r->hw) : stn_hw_discover(&r->hw);
    if (rc)
        return rc;
    if (o->mem_given) {
        char a[32], b[32];
        if (r->hw.dram.value && o->mem > r->hw.dram.value) /* (a typo's 1000T, or a budget that would swap) */
            return stn_error(-EINVAL, "--mem %s: more than %s's memory, %s (%s): a budget must fit in DRAM",
                             stn_fmt_bytes(a, sizeof a, o->mem), r->hw.machine,
                             stn_fmt_bytes(b, sizeof b, r->hw.dram.value),
                             r->hw.described ? "its \"dram\"" : r->hw.dram.source);
        r->mem_budget = o->mem;
        snprintf(r->mem_source, sizeof r->mem_source, "--mem");
    } else {
        r->mem_budget = stn_hw_budget(&r->hw, r->mem_source, sizeof r->mem_source);
        int node = stn_par_node_size(); /* MPI ranks on this machine share its DRAM */
        if (node > 1) {
            r->mem_budget /= (uint64_t)node;
            size_t k = strlen(r->mem_source);
            snprintf(r->mem_source + k, sizeof r->mem_source - k, ", shared by %d ranks on this machine",
                     node);
        }
    }
    return 0;
}

/* The out-of-core engine's device: --dir must be a directory, and its O_DIRECT alignment is the
 * machine's block figure (a --machine file gives its own, and no directory is touched). */
static int find_device(stn_run *r) {
    if (r->hw.described)
        return 0;
    struct stat sb;
    if (stat(r->o->dir, &sb) != 0)
        return stn_error(stn_neg_errno(errno), "--dir %s: %s (the scratch files of --mode ooc go there)",
                         r->o->dir, errno == ENOENT ? "no such directory" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return stn_error(-ENOTDIR, "--dir %s: not a directory", r->o->dir);
    size_t align = 0;
    stn_hw_fig *block = &r->hw.block;
    int rc = stn_dio_alignment(r->o->dir, &align, block->source, sizeof block->source);
    block->value = rc == 0 ? align : 0;
    return rc;
}

/* The device's bandwidth curves for the time model: a --machine file's, else those `stencilc
 * probe` measured for --dir's device, else the built-in default (and a note in the report). */
static void find_curves(stn_run *r) {
    char path[4096];
    if (r->hw.dev_keys == 3) {
        r->dev = r->hw.dev;
        return;
    }
    stn_dev_default(&r->dev);
    if (r->hw.described || stn_dev_cache_path(r->o->dir, path, sizeof path) != 0 || access(path, F_OK) != 0)
        return;
    stn_hw probed;
    if (stn_hw_load_machine(path, &probed) != 0 || probed.dev_keys != 3) {
        stn_warn(r->log,
                 "the device file %s is not usable (%s); the time model uses default curves; "
                 "run 'stencilc probe --dir %s' again",
                 path, probed.dev_keys != 3 ? "no curves" : stn_errmsg(), r->o->dir);
        stn_error_clear();
        return;
    }
    r->dev = probed.dev;
    snprintf(r->dev.source, sizeof r->dev.source, "stencilc probe: %.490s", path);
}

/* Everything before the engine: the inputs looked at, the series, points and `along` arrays read, the
 * outputs' temporaries created, the device found. */
static int prepare(program_run *pr) {
    stn_run *r = &pr->in;
    int ooc = r->o->mode == STN_MODE_OOC;
    if (!ooc)
        stn_note_ignored(r);
    int rc = 0;
    if (ooc && stn_par_size() > 1) /* (first: every rank takes part, before anything can fail on one) */
        rc = stn_par_network(&r->net_bytes_per_second, &r->net_latency, r->net_source, sizeof r->net_source);
    if (rc == 0)
        rc = stn_check_inputs(r);
    if (rc == 0 && !r->o->plan_only)
        rc = stn_series_load(r, &pr->res.st);
    if (rc == 0 && !r->o->plan_only)
        rc = stn_points_load(r, &pr->res.st);
    if (rc == 0)
        rc = stn_along_load(r, &pr->res.st); /* the rate measurements read them too */
    if (rc == 0) {
        r->writers = calloc(2 * (size_t)r->d->nfields + (size_t)r->d->nrecords, sizeof *r->writers);
        if (!r->writers)
            rc = stn_error(-ENOMEM, "out of memory");
    }
    if (rc == 0)
        rc = stn_outputs_open(r, &pr->report);
    if (rc == 0 && ooc)
        rc = find_device(r);
    if (rc == 0 && ooc)
        find_curves(r);
    return rc;
}

/* After the engine (rc: how it went): the report written, then the outputs and the report renamed into
 * place, or all of them removed after a failure; the program's summary line. */
static int finish(program_run *pr, int rc, int program) {
    stn_run *r = &pr->in;
    /* each series and points file is read once, before the engine; each record written once */
    pr->res.predicted_read += r->series_bytes + r->points_bytes + r->along_bytes;
    for (int k = 0; k < r->d->nrecords && stn_par_rank() == 0; k++) /* (rank 0 writes them) */
        pr->res.predicted_written +=
            r->o->record_path[k] ? (uint64_t)r->o->steps * stn_record_bytes(r, k) : 0;
    if (stn_par_size() > 1 && stn_par_any(rc) && rc == 0)
        rc = stn_error(-EIO, "another rank failed (its error is above)");
    if (rc == 0)
        rc = stn_outputs_commit(r, &pr->res, r->o->mode == STN_MODE_OOC ? &pr->plan : NULL, &pr->report);
    stn_outputs_abort(r, &pr->report); /* whatever is left after a failure */
    if (rc == 0 && program && !r->o->plan_only && stn_par_rank() == 0)
        stn_summary_end(r, &pr->res);
    return rc;
}

static void free_run(program_run *pr) {
    free(pr->res.ranks);
    pr->res.ranks = NULL;
    stn_series_free(&pr->in);
    stn_points_free(&pr->in);
    stn_along_free(&pr->in);
    free(pr->in.writers);
    stn_log_free(&pr->log);
}

/* ------------------------------------------------------------------ a run held open: stn_sim
 *
 * The one implementation of a run.  The embedding API (stn_sim_open ... stn_sim_close) and the
 * program's main (stn_program_main) both go through it: main is open, one advance of --steps, close
 * (docs/design/015, decision 6). */

/* The horizon of a simulation opened without --steps: the plan's, never reached in practice. */
#define STN_SIM_OPEN_STEPS ((int64_t)1 << 40)

struct stn_sim {
    program_run pr;
    stn_opts o;
    int argc;
    char **argv;           /* copies: the options point into them (NULL: the program's own argv) */
    int program;           /* the program's main: the one advance is the whole run */
    stn_incore *ic;        /* the engine: in-core (and mmap), */
    stn_ooc *oc;           /* or out of core */
    int64_t done;          /* steps advanced */
    int failed;            /* an advance failed: the levels are partly stepped */
    uint64_t ckpt_written; /* the bytes of the checkpoints' files (the IO model's) */
    int saved_threads;     /* the caller's OpenMP threads, while a call runs with --threads */
    stn_program_desc desc; /* the descriptor, its reach at least its halo */
    char dir[4096];        /* --dir with %r replaced by the rank (MPI) */
};

static void sim_free(stn_sim *s) {
    if (!s)
        return;
    stn_incore_close(s->ic);
    stn_ooc_close(s->oc, s->failed); /* after a failed advance the committed sweeps stay, for --resume */
    stn_outputs_abort(&s->pr.in, &s->pr.report);
    free_run(&s->pr);
    stn_opts_free(&s->o);
    for (int i = 0; s->argv && i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s);
}

/* A simulation with the descriptor (checked) and no options yet. */
static int sim_new(const stn_program_desc *given, stn_sim **out) {
    *out = NULL;
    if (stn_desc_check(given) != 0)
        return -EINVAL;
    stn_sim *s = calloc(1, sizeof *s);
    if (!s)
        return stn_error(-ENOMEM, "out of memory");
    s->desc = *given;
    stn_program_desc *d = &s->desc;
    for (int k = 0; k < 3; k++) {
        d->reach_lo[k] = d->reach_lo[k] > d->halo_lo[k] ? d->reach_lo[k] : d->halo_lo[k];
        d->reach_hi[k] = d->reach_hi[k] > d->halo_hi[k] ? d->reach_hi[k] : d->halo_hi[k];
    }
    *out = s;
    return 0;
}

/* Each call runs with the run's --threads, and leaves the process's setting as it found it. */
static void threads_in(stn_sim *s) {
    s->saved_threads = stn_omp_max_threads();
    if (s->o.threads)
        stn_omp_set_threads(s->o.threads);
}

static void threads_out(const stn_sim *s) {
    if (s->o.threads)
        stn_omp_set_threads(s->saved_threads);
}

/* The run of the parsed options: inputs checked, series, points and `along` arrays read, outputs'
 * temporaries created, the engine opened (out of core: planned, or only the plan printed). */
static int sim_start(stn_sim *s, double t_start) {
    stn_stats_reset_peaks();
    stn_opts_bound_bt(&s->o, s->o.steps == STN_SIM_OPEN_STEPS); /* (before anything is sized by it) */
    int rc = setup_run(&s->pr, &s->desc, &s->o, t_start);
    threads_in(s);
    if (rc == 0)
        rc = prepare(&s->pr);
    if (rc == 0)
        rc = s->o.mode == STN_MODE_OOC ? stn_ooc_open(&s->pr.in, &s->pr.res, &s->pr.plan, s->program, &s->oc)
                                       : stn_incore_open(&s->pr.in, &s->pr.res, &s->ic);
    if (rc == 0 && s->oc)
        s->done = stn_ooc_steps_done(s->oc); /* --resume: the steps of the sweeps saved */
    if (rc == 0 && s->oc && s->program && !s->o.plan_only && stn_par_rank() == 0)
        stn_summary_plan(&s->pr.in, &s->pr.res, &s->pr.plan);
    threads_out(s);
    return rc;
}

/* Under MPI: ranks other than 0 print no progress and write no report; --mode mmap is not split.
 * --dir's %r is the rank's number, 0 without MPI (its folder made if missing). */
static int ranks_options(stn_sim *s) {
    int P = stn_par_size(), rank = stn_par_rank(), node = stn_par_node_size();
    if (rank > 0)
        s->o.quiet = 1;
    if (node > 1 && s->o.threads == 0) { /* ranks sharing a machine share its cores: threads that outnumber
                                          * them spin (heat3d 256^3, 24 steps, 2 ranks on the 2-core VM:
                                          * 8.9 s with 2 threads a rank, 0.61 s with 1: one sweep) */
        int cores = stn_omp_max_threads() / node;
        s->o.threads = cores > 1 ? cores : 1;
    }
    if (P > 1 && s->o.mode == STN_MODE_MMAP && !s->o.help && !s->o.version)
        return stn_error(-ENOTSUP,
                         "--mode mmap with %d MPI ranks: the ranks split --mode ooc and --mode incore", P);
    const char *d = s->o.dir, *at = d ? strstr(d, "%r") : NULL;
    if (!at)
        return 0;
    size_t n = 0;
    for (; *d && n + 16 < sizeof s->dir; d++) {
        if (d[0] == '%' && d[1] == 'r') {
            n += (size_t)snprintf(s->dir + n, sizeof s->dir - n, "%d", rank);
            d++;
        } else {
            s->dir[n++] = *d;
        }
    }
    s->dir[n] = '\0';
    if (*d)
        return stn_error(-ENAMETOOLONG, "--dir %s: too long", s->o.dir);
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST)
        return stn_error(stn_neg_errno(errno), "--dir %s: cannot make rank %d's folder '%s': %s", s->o.dir,
                         rank, s->dir, strerror(errno));
    s->o.dir = s->dir;
    return 0;
}

static int program_main(const stn_program_desc *given, int argc, char **argv);

int stn_program_main(const stn_program_desc *given, int argc, char **argv) {
    if (stn_par_init(&argc, &argv) != 0) {
        print_error(given, stn_errmsg());
        return 1;
    }
    int status = program_main(given, argc, argv);
    stn_par_finalize();
    return status;
}

static int program_main(const stn_program_desc *given, int argc, char **argv) {
    double t_start = stn_now();
    stn_error_clear();
    stn_sim *s;
    if (sim_new(given, &s) != 0) {
        print_error(given, stn_errmsg());
        return 1;
    }
    stn_program_desc desc = s->desc; /* for the messages, after s is gone */
    if (stn_opts_parse(&s->desc, argc, argv, &s->o) != 0 || ranks_options(s) != 0) {
        print_error(&desc, stn_errmsg());
        sim_free(s);
        return 2;
    }
    int status = 0;
    if (s->o.help) {
        stn_usage(&desc, stdout);
    } else if (s->o.version) {
        printf("%s (stencilc %s, runtime %s)\n", desc.name,
               desc.compiler_version ? desc.compiler_version : "?", STN_RT_VERSION);
    } else {
        s->program = 1;
        int rc = sim_start(s, t_start);
        if (stn_par_size() > 1 && stn_par_any(rc) && rc == 0)
            rc = stn_error(-EIO, "another rank failed to start (its error is above)");
        if (rc == 0 && !s->o.plan_only && stn_par_rank() == 0)
            stn_interrupt_arm(&s->pr.in); /* (SIGINT, SIGTERM: says whether --resume continues it) */
        if (rc == 0 && !s->o.plan_only)
            rc = stn_sim_advance(s, s->o.steps - s->done); /* (resumed: the steps left) */
        if (rc == 0) {
            rc = stn_sim_close(s);
            s = NULL;
        }
        if (rc) {
            print_error(&desc, stn_errmsg());
            status = 1;
        }
    }
    sim_free(s); /* (a failed run's committed sweeps stay, for --resume) */
    stn_interrupt_disarm();
    fflush(stdout);
    return status;
}

/* ------------------------------------------------------------------ the embedding API */

/* A call on a NULL simulation (never opened, or a failed open's). */
static int no_sim(const char *what) { return stn_error(-EINVAL, "%s: no simulation (NULL)", what); }

int stn_sim_open(const stn_program_desc *given, int argc, const char *const *argv, stn_sim **out) {
    double t_start = stn_now();
    stn_error_clear();
    if (!out)
        return stn_error(-EINVAL, "stn_sim_open: no place for the simulation (NULL)");
    *out = NULL;
    if (argc < 0 || (argc > 0 && !argv))
        return stn_error(-EINVAL, "stn_sim_open: %d options and no array of them", argc);
    stn_sim *s;
    int rc = sim_new(given, &s);
    if (rc)
        return rc;
    stn_program_desc *d = &s->desc;
    /* the options after a program name, as stn_opts_parse takes them; without --steps, "--steps 0"
     * and then an open horizon (stencils with series or records need the number) */
    int given_steps = 0;
    for (int i = 0; i < argc; i++)
        given_steps |= argv[i] && (strcmp(argv[i], "--steps") == 0 || strncmp(argv[i], "--steps=", 8) == 0);
    s->argc = argc + 1 + (given_steps ? 0 : 2);
    s->argv = calloc((size_t)s->argc + 1, sizeof *s->argv);
    rc = s->argv ? 0 : stn_error(-ENOMEM, "out of memory");
    for (int i = 0; rc == 0 && i < s->argc; i++) {
        const char *a = i == 0 ? d->name : i <= argc ? argv[i - 1] : i == argc + 1 ? "--steps" : "0";
        if (!a)
            rc = stn_error(-EINVAL, "option %d is NULL", i - 1);
        else if (!(s->argv[i] = strdup(a)))
            rc = stn_error(-ENOMEM, "out of memory");
    }
    if (rc == 0 && !given_steps && (d->nseries > 0 || d->nrecords > 0))
        rc = stn_error(-EINVAL, "--steps is required: %s has %s, sized by the steps the simulation runs",
                       d->name, d->nseries > 0 ? "series" : "records");
    if (rc == 0)
        rc = stn_opts_parse(d, s->argc, s->argv, &s->o);
    if (rc == 0 && !given_steps)
        s->o.steps = STN_SIM_OPEN_STEPS;
    if (rc == 0 && (s->o.help || s->o.version || s->o.plan_only))
        rc = stn_error(-EINVAL,
                       "%s is an option of the command line, not of a simulation opened from a program",
                       s->o.help      ? "--help"
                       : s->o.version ? "--version"
                                      : "--plan-only");
    if (rc == 0 && s->o.resume && s->o.mode != STN_MODE_OOC)
        rc = stn_error(-EINVAL,
                       "--resume: only an out-of-core simulation keeps its state in files to resume from");
    if (rc == 0 && s->o.mode == STN_MODE_OOC && s->o.steps < 1)
        s->o.steps = 1; /* the plan's horizon: at least one sweep */
    if (rc == 0)
        rc = sim_start(s, t_start);
    if (rc) {
        sim_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int stn_sim_restart(const stn_program_desc *given, const char *dir, int argc, const char *const *argv,
                    stn_sim **out) {
    stn_error_clear();
    if (out)
        *out = NULL;
    if (!given || !given->name || argc < 0 || (argc > 0 && !argv))
        return stn_error(-EINVAL, "stn_sim_restart: no descriptor, or %d options and no array of them", argc);
    stn_ckpt ck;
    int rc = stn_ckpt_read(dir, given->name, &ck), has_size = 0, n = 0, dims = stn_dims(given);
    if (rc)
        return rc;
    for (int i = 0; i < argc; i++)
        has_size |= argv[i] && (strcmp(argv[i], "--size") == 0 || strncmp(argv[i], "--size=", 7) == 0);
    const char **all = calloc((size_t)(argc + 2 + 2 * ck.nlevels + 1), sizeof *all);
    char **inits = calloc((size_t)ck.nlevels + 1, sizeof *inits), size[80];
    rc = all && inits ? 0 : stn_error(-ENOMEM, "out of memory");
    for (int k = 0, at = 0; k < dims; k++) /* x[,y[,z]] */
        at += snprintf(size + at, sizeof size - (size_t)at, "%s%" PRId64, k ? "," : "", ck.size[k]);
    for (int i = 0; rc == 0 && i < argc; i++)
        all[n++] = argv[i];
    if (rc == 0 && !has_size) /* (given: the levels' shapes must be its) */
        all[n++] = "--size", all[n++] = size;
    for (int l = 0; rc == 0 && l < ck.nlevels; l++)
        if (asprintf(&inits[l], "%s=%s/%s.npy", ck.levels[l], dir, ck.levels[l]) < 0)
            rc = stn_error(-ENOMEM, "out of memory"), inits[l] = NULL;
        else
            all[n++] = "--init", all[n++] = inits[l];
    if (rc == 0 && (rc = stn_sim_open(given, n, all, out)) != 0)
        stn_error(rc, "restart from '%s': %s", dir, stn_errmsg());
    for (int l = 0; inits && l < ck.nlevels; l++)
        free(inits[l]);
    free(inits);
    free(all);
    stn_ckpt_free(&ck);
    return rc;
}

int stn_sim_field(const stn_sim *s, const char *name, int *field, int *level) {
    if (!s || !field || !level)
        return no_sim(s ? "stn_sim_field: no place for the field (NULL)" : "stn_sim_field");
    const stn_program_desc *d = &s->desc;
    size_t n = name ? strcspn(name, ".") : 0;
    int prev = name && name[n] != '\0';
    if (prev && strcmp(name + n, ".prev") != 0)
        n = 0;
    for (int f = 0; n > 0 && f < d->nfields; f++)
        if (strlen(d->fields[f].name) == n && strncmp(d->fields[f].name, name, n) == 0) {
            if (prev && d->fields[f].levels < 2)
                return stn_error(-EINVAL, "'%s': field '%s' has one level, no previous one", name,
                                 d->fields[f].name);
            *field = f;
            *level = prev;
            return 0;
        }
    char list[512] = "";
    for (int f = 0; f < d->nfields; f++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s%s", f ? ", " : "", d->fields[f].name,
                 d->fields[f].levels > 1 ? " (and NAME.prev)" : "");
    return stn_error(-EINVAL, "%s has no field '%s' (its fields: %s)", d->name, name ? name : "(null)", list);
}

/* The field, level and box of a read or write, checked; the caller's strides (elements; NULL: dense). */
static int sim_box(stn_sim *s, const char *what, const char *name, const stn_box *box, const void *buf,
                   const int64_t *strides, int *f, int *level, int64_t lo[3], int64_t hi[3], int64_t st[3]) {
    if (s->failed)
        return stn_error(-EIO, "%s: an earlier advance failed; the levels are not those of any step", what);
    int rc = stn_sim_field(s, name, f, level);
    if (rc)
        return stn_error(rc, "%s: %s", what, stn_errmsg());
    if (!box || !buf)
        return stn_error(-EINVAL, "%s '%s': no %s", what, name, box ? "buffer" : "box");
    const int64_t n[3] = {s->o.size[0], s->o.size[1], s->o.size[2]};
    int dims = stn_dims(&s->desc);
    for (int k = 0; k < 3; k++) {
        lo[k] = k < dims ? box->lo[k] : 0;
        hi[k] = k < dims ? box->hi[k] : 1;
        if (lo[k] < 0 || hi[k] < lo[k] || hi[k] > n[k])
            return stn_error(-EINVAL,
                             "%s '%s': the box's %c range [%" PRId64 ", %" PRId64 ") is not within the "
                             "grid's [0, %" PRId64 ")",
                             what, name, "xyz"[k], lo[k], hi[k], n[k]);
    }
    st[0] = strides ? strides[0] : 1;
    st[1] = strides && dims > 1 ? strides[1] : (hi[0] - lo[0]);
    st[2] = strides && dims > 2 ? strides[2] : (hi[0] - lo[0]) * (hi[1] - lo[1]);
    return 0;
}

/* Copy a box between the caller's buffer and a level laid out as the run's view. */
static void sim_copy(const stn_sim *s, int to_level, char *lvl, char *buf, const int64_t lo[3],
                     const int64_t hi[3], const int64_t st[3]) {
    const stn_view *v = &s->pr.in.view;
    size_t es = (size_t)s->desc.elem_size;
    int64_t w = hi[0] - lo[0];
    for (int64_t z = lo[2]; z < hi[2]; z++)
        for (int64_t y = lo[1]; y < hi[1]; y++) {
            char *g = lvl + ((size_t)(z * v->sz + y * v->sy + lo[0])) * es;
            char *u = buf + (ptrdiff_t)((z - lo[2]) * st[2] + (y - lo[1]) * st[1]) * (ptrdiff_t)es;
            if (st[0] == 1) {
                memcpy(to_level ? g : u, to_level ? u : g, (size_t)w * es);
                continue;
            }
            for (int64_t x = 0; x < w; x++) {
                char *uc = u + (ptrdiff_t)(x * st[0]) * (ptrdiff_t)es;
                memcpy(to_level ? g + (size_t)x * es : uc, to_level ? uc : g + (size_t)x * es, es);
            }
        }
}

/* A write (buf read) or a read (buf written) of a box, checked, on either engine. */
static int sim_move(stn_sim *s, int write, const char *field, const stn_box *box, char *buf,
                    const int64_t *strides) {
    int f, level;
    int64_t lo[3], hi[3], st[3];
    if (!s)
        return no_sim(write ? "write" : "read");
    int rc = sim_box(s, write ? "write" : "read", field, box, buf, strides, &f, &level, lo, hi, st);
    if (rc)
        return rc;
    if (s->oc)
        return stn_ooc_sim_box(s->oc, f, level, write, lo, hi, buf, st);
    double t0 = stn_now();
    sim_copy(s, write, stn_incore_level(s->ic, f, level), buf, lo, hi, st);
    if (write)
        stn_incore_written(s->ic, f, level);
    stn_stats_add_time(&s->pr.res.st, STN_PHASE_COPY, t0);
    return 0;
}

int stn_sim_write(stn_sim *s, const char *field, const stn_box *box, const void *buf,
                  const int64_t *strides) {
    return sim_move(s, 1, field, box, (char *)buf, strides);
}

int stn_sim_read(stn_sim *s, const char *field, const stn_box *box, void *buf, const int64_t *strides) {
    return sim_move(s, 0, field, box, buf, strides);
}

int stn_sim_advance(stn_sim *s, int64_t steps) {
    if (!s)
        return no_sim("advance");
    const stn_program_desc *d = &s->desc;
    if (s->failed)
        return stn_error(-EIO, "advance: an earlier advance failed; the levels are not those of any step");
    if (steps < 0)
        return stn_error(-EINVAL, "advance: %" PRId64 " steps", steps);
    if ((d->nseries > 0 || d->nrecords > 0) && steps > s->o.steps - s->done)
        return stn_error(
            -EINVAL,
            "advance %" PRId64 " steps after %" PRId64 ": past the %" PRId64 " steps the simulation "
            "was opened for, which its %s sized (open it with steps = the total)",
            steps, s->done, s->o.steps, d->nseries > 0 ? "series were checked and" : "records were");
    if (steps > STN_MAX_STEPS - s->done) /* (in this order: the sum cannot overflow) */
        return stn_error(-EINVAL,
                         "advance %" PRId64 " steps after %" PRId64
                         ": a simulation runs at most %lld steps in all, as --steps does",
                         steps, s->done, (long long)STN_MAX_STEPS);
    threads_in(s);
    int rc = s->oc ? stn_ooc_advance(s->oc, steps) : stn_incore_advance(s->ic, s->done, steps);
    threads_out(s);
    if (rc) {
        s->failed = 1;
        return rc;
    }
    s->done += steps;
    return 0;
}

int64_t stn_sim_steps_done(const stn_sim *s) { return s ? s->done : no_sim("steps_done"); }

int stn_sim_report(stn_sim *s, const char *path) {
    if (!s)
        return no_sim("report");
    if (!path)
        return stn_error(-EINVAL, "report: no path");
    int64_t steps = s->o.steps;
    s->o.steps = s->done; /* the steps so far */
    s->pr.res.engine_bytes = stn_peak_allocated_bytes();
    int rc = s->oc ? stn_ooc_account(s->oc, 0) : 0;
    stn_result res = s->pr.res; /* the models so far, as finish() completes them */
    res.predicted_read += s->oc ? s->pr.in.series_bytes + s->pr.in.points_bytes + s->pr.in.along_bytes : 0;
    res.predicted_written += s->ckpt_written;
    if (rc == 0)
        rc = stn_report_write(&s->pr.in, &res, s->oc ? &s->pr.plan : NULL, path);
    s->o.steps = steps;
    return rc;
}

/* One level of one field into DIR/NAME.npy in slabs of planes (rows in 2d, runs of x in 1d) of at most
 * 64 MiB (at least one), through stn_sim_read; the file appears complete or not at all. */
static int checkpoint_level(stn_sim *s, const char *dir, int f, int level, char (*names)[300], int *count) {
    const stn_program_desc *d = &s->desc;
    int dims = stn_dims(d);
    char name[300], path[4096];
    snprintf(name, sizeof name, "%s%s", d->fields[f].name, level ? ".prev" : "");
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    int64_t shape[3], *sh = stn_npy_shape(&s->pr.in, shape);
    const int64_t n[3] = {s->o.size[0], s->o.size[1], s->o.size[2]};
    int axis = dims - 1;                                /* the slowest axis of the grid: slabs along it */
    uint64_t cell = (uint64_t)d->elem_size, per = cell; /* bytes of one index along `axis` */
    for (int k = 0; k < axis; k++)
        per *= (uint64_t)n[k];
    int64_t slab = (int64_t)((64u << 20) / per);
    slab = slab < 1 ? 1 : slab > n[axis] ? n[axis] : slab;
    char *buf = malloc((size_t)(per * (uint64_t)slab));
    stn_npy_writer *w = NULL;
    int rc =
        buf ? stn_npy_writer_open(path, d->npy_descr, dims, sh, &w) : stn_error(-ENOMEM, "out of memory");
    for (int64_t a = 0; rc == 0 && a < n[axis]; a += slab) {
        stn_box box = {{0, 0, 0}, {n[0], n[1], n[2]}};
        box.lo[axis] = a;
        box.hi[axis] = a + slab < n[axis] ? a + slab : n[axis];
        rc = stn_sim_read(s, name, &box, buf, NULL);
        uint64_t bytes = per * (uint64_t)(box.hi[axis] - a);
        if (rc == 0)
            rc = stn_npy_writer_pwrite(w, buf, (size_t)bytes, per * (uint64_t)a, &s->pr.res.st);
        s->ckpt_written += rc == 0 ? bytes : 0;
    }
    if (rc == 0)
        rc = stn_npy_writer_finish(w);
    if (rc == 0)
        rc = stn_npy_writer_commit(w);
    else if (w)
        stn_npy_writer_abort(w);
    free(buf);
    if (rc == 0)
        memcpy(names[(*count)++], name, sizeof name);
    return rc ? stn_error(rc, "checkpoint %s: %s", path, stn_errmsg()) : 0;
}

int stn_sim_checkpoint(stn_sim *s, const char *dir) {
    if (!s)
        return no_sim("checkpoint");
    const stn_program_desc *d = &s->desc;
    if (!dir || !*dir)
        return stn_error(-EINVAL, "checkpoint: no folder");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return stn_error(stn_neg_errno(errno), "checkpoint: cannot create the folder '%s': %s", dir,
                         strerror(errno));
    char(*names)[300] = calloc((size_t)d->nfields * 2, sizeof *names);
    const char **levels = calloc((size_t)d->nfields * 2, sizeof *levels);
    int rc = names && levels ? 0 : stn_error(-ENOMEM, "out of memory"), n = 0;
    for (int f = 0; rc == 0 && f < d->nfields; f++)
        for (int l = 0; rc == 0 && l < d->fields[f].levels; l++)
            rc = checkpoint_level(s, dir, f, l, names, &n);
    for (int k = 0; rc == 0 && k < n; k++)
        levels[k] = names[k];
    if (rc == 0) /* the manifest, last: a folder without it holds no complete checkpoint */
        rc = stn_ckpt_write(dir, d->name, s->done, s->o.size, n, levels);
    free(names);
    free(levels);
    return rc;
}

void stn_sim_discard(stn_sim *s) { sim_free(s); }

int stn_sim_close(stn_sim *s) {
    if (!s)
        return 0;
    stn_error_clear();
    int rc = s->failed ? stn_error(-EIO, "close: an earlier advance failed; no output is written") : 0;
    int plan_only = s->o.plan_only; /* (the program's) */
    for (int k = 0; rc == 0 && k < s->desc.nrecords; k++)
        if (s->o.record_path[k] && s->done != s->o.steps)
            rc = stn_error(-EINVAL,
                           "--out %s=%s: the record holds the %" PRId64 " steps the simulation was "
                           "opened for, and it advanced %" PRId64,
                           s->desc.records[k].name, s->o.record_path[k], s->o.steps, s->done);
    if (!plan_only)
        s->o.steps = s->done; /* the report's, and the records' */
    threads_in(s);
    if (rc == 0)
        rc = s->oc ? stn_ooc_finish(s->oc) : stn_incore_export(s->ic);
    threads_out(s);
    s->pr.res.predicted_written += s->ckpt_written;
    stn_incore_close(s->ic);
    stn_ooc_close(s->oc, rc != 0); /* a failed export: the committed sweeps stay, for --resume */
    s->ic = NULL;
    s->oc = NULL;
    rc = finish(&s->pr, rc, s->program);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", stn_errmsg());
    sim_free(s);
    if (rc)
        stn_error(rc, "%s", msg);
    return rc;
}
