/* sim.c -- a run held open (stn_sim): the embedding API (stn_sim_open ... stn_sim_close), which the
 * program's main runs too (docs/design/015, decision 6); every call reaches the engine through its table
 * (engines/stn_engine.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "program/stn_program.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ a run held open: stn_sim
 *
 * The one implementation of a run.  The embedding API (stn_sim_open ... stn_sim_close) and the
 * program's main (stn_program_main) both go through it: main is open, one advance of --steps, close
 * (docs/design/015, decision 6). */

void stn_sim_discard(stn_sim *s) {
    if (!s)
        return;
    stn_engine_close(s->eng, s->failed); /* after a failed advance the committed sweeps stay, for --resume */
    stn_outputs_abort(&s->pr.in, &s->pr.report);
    stn_program_free(&s->pr);
    stn_opts_free(&s->o);
    for (int i = 0; s->argv && i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s);
}

/* A simulation with the descriptor (checked) and no options yet. */
int stn_sim_new(const stn_program_desc *given, stn_sim **out) {
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

/* The program's plan line, with the run's bytes beside the engine's, as its summary line gives them. */
static void print_plan(const stn_sim *s) {
    stn_result whole = s->pr.res;
    uint64_t xr, xw;
    stn_program_extra_io(&s->pr, &xr, &xw);
    whole.predicted_read += xr, whole.predicted_written += xw;
    stn_summary_plan(&s->pr.in, &whole, &s->pr.plan);
}

/* The run of the parsed options: inputs checked, series, points and `along` arrays read, outputs'
 * temporaries created, the engine opened (out of core: planned, or only the plan printed). */
int stn_sim_start(stn_sim *s, double t_start) {
    stn_stats_reset_peaks();
    stn_opts_bound_bt(&s->o, s->o.steps == STN_SIM_OPEN_STEPS); /* (before anything is sized by it) */
    int rc = stn_program_setup(&s->pr, &s->desc, &s->o, t_start);
    s->pr.in.t_job = s->t_job > 0 && s->t_job <= t_start ? s->t_job : t_start;
    threads_in(s);
    /* under MPI each step a rank can fail alone ends in an agreement (design 018): prepare starts with a
     * collective, and ends with one (its inputs, outputs and --dir); the engine's open agrees inside */
    rc = stn_par_agree(rc, "to set up (the machine, --mem)");
    if (rc == 0)
        rc = stn_program_prepare(&s->pr);
    if (rc == 0)
        rc = stn_engine_open(&s->pr.in, &s->pr.res, &s->pr.plan, s->program, &s->eng);
    if (rc == 0)
        s->pr.first_step = s->done = stn_engine_steps_done(s->eng); /* --resume: the sweeps saved */
    if (rc == 0)
        s->pr.snap_written = stn_engine_snap_written(s->eng, s->pr.first_step);
    if (rc == 0 && stn_engine_of(s->o.mode)->has.plans && s->program && !s->o.plan_only &&
        stn_par_rank() == 0)
        print_plan(s);
    threads_out(s);
    return rc;
}

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
    int rc = stn_sim_new(given, &s);
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
    int saves = 0;
    for (int i = 0; i < argc; i++)
        saves |= argv[i] && (strcmp(argv[i], "--save") == 0 || strncmp(argv[i], "--save=", 7) == 0);
    if (rc == 0 && !given_steps && saves)
        rc = stn_error(-EINVAL, "--steps is required with --save: the snapshots are sized by the steps the "
                                "simulation runs");
    if (rc == 0 && !given_steps && (d->nseries > 0 || d->nrecords > 0))
        rc = stn_error(-EINVAL, "--steps is required: %s has %s, sized by the steps the simulation runs",
                       d->name, d->nseries > 0 ? "series" : "records");
    if (rc == 0)
        rc = stn_opts_parse(d, s->argc, s->argv, stn_par_size(), &s->o);
    if (rc == 0 && !given_steps)
        s->o.steps = STN_SIM_OPEN_STEPS;
    if (rc == 0 && (s->o.help || s->o.version || s->o.plan_only))
        rc = stn_error(-EINVAL,
                       "%s is an option of the command line, not of a simulation opened from a program",
                       s->o.help      ? "--help"
                       : s->o.version ? "--version"
                                      : "--plan-only");
    if (rc == 0 && s->o.resume && !stn_engine_of(s->o.mode)->has.resumes)
        rc = stn_error(-EINVAL,
                       "--resume: only an out-of-core simulation keeps its state in files to resume from");
    if (rc == 0 && stn_engine_of(s->o.mode)->has.plans && s->o.steps < 1)
        s->o.steps = 1; /* the plan's horizon: at least one sweep */
    if (rc == 0)
        rc = stn_sim_start(s, t_start);
    if (rc) {
        stn_sim_discard(s);
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
    for (int f = 0; name && f < d->nfields; f++)
        if (d->fields[f].level2_of && strcmp(d->fields[f].name, name) == 0) { /* "u.prev.prev" */
            *field = f;
            *level = 0;
            return 0;
        }
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

/* The field, level and box of a read or write (b->write, b->buf set), checked, into b; the caller's
 * strides (elements; NULL: dense). */
static int sim_box(stn_sim *s, const char *name, const stn_box *box, const int64_t *strides, stn_box_io *b) {
    const char *what = b->write ? "write" : "read";
    int64_t *lo = b->lo, *hi = b->hi, *st = b->st;
    if (s->failed)
        return stn_error(-EIO, "%s: an earlier advance failed; the levels are not those of any step", what);
    int rc = stn_sim_field(s, name, &b->f, &b->level);
    if (rc)
        return stn_error(rc, "%s: %s", what, stn_errmsg());
    if (!box || !b->buf)
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

/* A write (buf read) or a read (buf written) of a box, checked, through the engine. */
static int sim_move(stn_sim *s, int write, const char *field, const stn_box *box, char *buf,
                    const int64_t *strides) {
    if (!s)
        return no_sim(write ? "write" : "read");
    stn_box_io b = {.write = write, .buf = buf};
    int rc = sim_box(s, field, box, strides, &b);
    return rc ? rc : stn_engine_box(s->eng, &b);
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
    int rc = stn_engine_advance(s->eng, s->done, steps);
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
    stn_result res; /* the models so far, as finish() completes them */
    int rc = stn_engine_account(s->eng, &res);
    res.predicted_written += s->ckpt_written;
    if (rc == 0)
        rc =
            stn_report_write(&s->pr.in, &res, stn_engine_of(s->o.mode)->has.plans ? &s->pr.plan : NULL, path);
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
    double t0 = stn_now();
    if (rc == 0)
        rc = stn_engine_finish(s->eng);
    if (stn_outputs_any(&s->pr.in))
        s->pr.res.export_seconds += stn_now() - t0;
    threads_out(s);
    s->pr.res.predicted_written += s->ckpt_written;
    rc = stn_program_commit(&s->pr, rc);
    /* the outputs not all in place: the committed sweeps stay, for --resume */
    stn_engine_close(s->eng, rc != 0);
    s->eng = NULL;
    rc = stn_program_finish(&s->pr, rc, s->program);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", stn_errmsg());
    stn_sim_discard(s);
    if (rc)
        stn_error(rc, "%s", msg);
    return rc;
}
