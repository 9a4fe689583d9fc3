/* summary.c -- what a run of the program tells its user on stderr, unless --quiet (docs/cli.md, "What
 * a run prints"): the options its mode ignores, the out-of-core plan once it is chosen, one line at the
 * end, and, when it is interrupted (SIGINT, SIGTERM), whether --resume continues it.  The progress
 * line in between is progress.c's.  Whole lines only, so that a log (stderr not a terminal) reads
 * well; the simulation API prints none of it but the warnings (its host decides what to print). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "program/stn_program.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void stn_note_ignored(stn_run *r) {
    const stn_opts *o = r->o;
    const char *ignored[5];
    int n = 0;
    if (o->tuner != STN_TUNER_NONE)
        ignored[n++] = "--tuner";
    if (o->rank != STN_RANK_NONE)
        ignored[n++] = "--rank";
    if (o->have_block)
        ignored[n++] = "--block";
    if (o->schedule != STN_SCHED_NONE)
        ignored[n++] = "--schedule";
    if (o->resume)
        ignored[n++] = "--resume";
    for (int k = 0; k < n; k++)
        stn_warn(r->log, "%s only affects the out-of-core engine; --mode %s ignores it", ignored[k],
                 stn_mode_names[o->mode]);
}

/* "by 64 bz 16 bt 4" (3d), "by 64 bt 4" (2d and a folded 1d grid's rows). */
static const char *blocks(const stn_ooc_result *plan, char *buf, size_t n) {
    if (plan->blk[1] >= 0)
        snprintf(buf, n, "by %" PRId64 " bz %" PRId64 " bt %" PRId64, plan->blk[0], plan->blk[1],
                 plan->blk[2]);
    else
        snprintf(buf, n, "by %" PRId64 " bt %" PRId64, plan->blk[0], plan->blk[2]);
    return buf;
}

void stn_summary_plan(const stn_run *r, const stn_result *res, const stn_ooc_result *plan) {
    if (r->o->quiet)
        return;
    char blk[96], how[96] = "", mem[32], budget[32], rd[32], wr[32], when[160] = "";
    /* the kernels' rate of earlier runs' loops (engines/ooc/ooc_history.c), where the model has it */
    const char *kern = res->rate_runs > 0 ? "; kernels: earlier runs' loops"
                       : res->rate_bias_runs > 0
                           ? "; kernels: startup, scaled by this machine's earlier loops"
                           : "";
    if (plan->tune_weighed > 0)
        snprintf(how, sizeof how, ": %" PRId64 " plans weighed in %.2f s", plan->tune_weighed,
                 plan->tune_seconds);
    if (res->have_time && r->dev.origin == STN_CURVES_CALIBRATED)
        snprintf(when, sizeof when, ", %.2f s (device curves: calibrated now, %.1f s%s)", res->time.total,
                 r->dev.calibrate_seconds, kern);
    else if (res->have_time)
        snprintf(when, sizeof when, ", %.2f s (device curves: %s%s)", res->time.total,
                 stn_curves_origin_name(r->dev.origin), kern);
    /* the budget's source up to its first comma: "--mem", "default: 3/4 of hwloc's memory" */
    int src = (int)strcspn(r->mem_source, ",");
    fprintf(stderr,
            "%s: plan: blocks %s (%s%s), z-strip %s, DRAM %s of the budget %s (%.*s); predicted: %s read, %s "
            "written%s\n",
            r->d->name, blocks(plan, blk, sizeof blk), plan->chooser ? plan->chooser : "?", how,
            plan->strip ? plan->strip : "none", stn_fmt_bytes(mem, sizeof mem, plan->mem_plan_bytes),
            stn_fmt_bytes(budget, sizeof budget, r->mem_budget), src, r->mem_source,
            stn_fmt_bytes(rd, sizeof rd, res->predicted_read),
            stn_fmt_bytes(wr, sizeof wr, res->predicted_written), when);
    fflush(stderr);
}

/* The peak memory: out of core the peak PSS (the ring's double-mapped pages once), set apart into what
 * the process held before the engine opened and the engine's buffers, which the budget bounds; else
 * the peak RSS. */
static void memory_text(char *buf, size_t n, const stn_run *r, const stn_result *res) {
    char peak[32], base[32], eng[32], budget[32];
    if (!res->peak_pss) {
        snprintf(buf, n, "peak memory %s (RSS)", stn_fmt_bytes(peak, sizeof peak, stn_peak_rss_bytes()));
        return;
    }
    snprintf(
        buf, n, "peak memory %s (PSS: %s before the engine opened, the engine's buffers %s of the budget %s)",
        stn_fmt_bytes(peak, sizeof peak, res->peak_pss), stn_fmt_bytes(base, sizeof base, res->pss_at_open),
        stn_fmt_bytes(eng, sizeof eng, res->engine_bytes),
        stn_fmt_bytes(budget, sizeof budget, r->mem_budget));
}

/* --mode gpu / gpu-ooc: "; copied X to the device and Y back (as predicted)", else "". */
static void gpu_text(char *buf, size_t n, const stn_result *res) {
    char up[32], down[32], pu[32], pd[32];
    buf[0] = 0;
    if (!res->gpu.have)
        return;
    int same = res->gpu.h2d == res->gpu.predicted_h2d && res->gpu.d2h == res->gpu.predicted_d2h;
    snprintf(buf, n, "; copied %s to the device and %s back (%s%s%s%s)",
             stn_fmt_bytes(up, sizeof up, res->gpu.h2d), stn_fmt_bytes(down, sizeof down, res->gpu.d2h),
             same ? "as predicted" : "predicted ",
             same ? "" : stn_fmt_bytes(pu, sizeof pu, res->gpu.predicted_h2d), same ? "" : " and ",
             same ? "" : stn_fmt_bytes(pd, sizeof pd, res->gpu.predicted_d2h));
}

void stn_summary_end(const stn_run *r, const stn_result *res) {
    if (r->o->quiet)
        return;
    const stn_opts *o = r->o;
    char size[96], rd[32], wr[32], prd[32], pwr[32], mem[192], pred[128] = "", loop[288] = "";
    int dims = stn_dims(r->d);
    if (dims == 3)
        snprintf(size, sizeof size, "%" PRId64 "x%" PRId64 "x%" PRId64, o->size[0], o->size[1], o->size[2]);
    else if (dims == 2)
        snprintf(size, sizeof size, "%" PRId64 "x%" PRId64, o->size[0], o->size[1]);
    else
        snprintf(size, sizeof size, "%" PRId64, o->size[0]);
    double cells = (double)stn_grid_cells(o) * (double)o->steps;
    /* the job's parts: " (import A s, time loop B s, predicted C s, R cells/s, export D s)" */
    char parts[4][64] = {"", "", "", ""};
    if (res->import_seconds > 0)
        snprintf(parts[0], sizeof parts[0], "import %.2f s", res->import_seconds);
    if (o->steps > 0 && res->loop_seconds > 0) {
        char model[48] = ""; /* (out of core: the time model's) */
        if (res->have_time)
            snprintf(model, sizeof model, ", predicted %.2f s", res->time.total);
        snprintf(parts[1], sizeof parts[1], "time loop %.2f s%s", res->loop_seconds, model);
        snprintf(parts[2], sizeof parts[2], "%.3g cells/s", cells / res->loop_seconds);
    }
    if (res->export_seconds > 0)
        snprintf(parts[3], sizeof parts[3], "export %.2f s", res->export_seconds);
    for (int k = 0, n = 0; k < 4; k++)
        if (parts[k][0]) {
            size_t at = strlen(loop);
            snprintf(loop + at, sizeof loop - at, "%s%s", n++ ? ", " : " (", parts[k]);
        }
    if (loop[0])
        snprintf(loop + strlen(loop), sizeof loop - strlen(loop), ")");
    if (res->st.bytes_read == res->predicted_read && res->st.bytes_written == res->predicted_written)
        snprintf(pred, sizeof pred, " (as predicted)");
    else
        snprintf(pred, sizeof pred, " (predicted %s and %s)",
                 stn_fmt_bytes(prd, sizeof prd, res->predicted_read),
                 stn_fmt_bytes(pwr, sizeof pwr, res->predicted_written));
    if (res->mapped_bytes > 0) { /* --tier pmem: where the bytes went (docs/design/022) */
        size_t k = strlen(pred);
        snprintf(pred + k, sizeof pred - k, " through --tier pmem (is_pmem %s)",
                 res->is_pmem ? "true" : "false");
    }
    memory_text(mem, sizeof mem, r, res);
    char gpu[192];
    gpu_text(gpu, sizeof gpu, res);
    fprintf(stderr, "%s: done: %" PRId64 " steps of %s in %.2f s%s; read %s, written %s%s%s; %s\n",
            r->d->name, o->steps, size, stn_now() - (r->t_job > 0 ? r->t_job : r->t_start), loop,
            stn_fmt_bytes(rd, sizeof rd, res->st.bytes_read),
            stn_fmt_bytes(wr, sizeof wr, res->st.bytes_written), pred, gpu, mem);
    fflush(stderr);
}

/* ------------------------------------------------------------------ interrupted */

static char note[4600]; /* "NAME: interrupted (" ... "): " and what is left, written by the handler */
static size_t head, tail_at;
static struct sigaction old_int, old_term;
static int armed;

/* Async-signal-safe: write(2) the note with the signal's name, then die of the signal as before. */
static void on_signal(int sig) {
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (stn_progress_line_open())
        (void)!write(STDERR_FILENO, "\n", 1);
    (void)!write(STDERR_FILENO, note, head);
    (void)!write(STDERR_FILENO, name, strlen(name));
    (void)!write(STDERR_FILENO, note + tail_at, strlen(note + tail_at));
    signal(sig, SIG_DFL);
    raise(sig);
}

void stn_interrupt_arm(const stn_run *r) {
    const stn_opts *o = r->o;
    if (o->quiet || o->plan_only || armed)
        return;
    int n = snprintf(note, sizeof note, "%s: interrupted (", r->d->name);
    head = (size_t)n;
    tail_at = head + 1; /* (the note's two parts, a NUL between them) */
    char *tail = note + tail_at;
    size_t room = sizeof note - tail_at;
    if (!stn_engine_of(o->mode)->has.resumes)
        snprintf(tail, room, "): an in-core run keeps no state; nothing was written\n");
    else if (o->schedule == STN_SCHED_ALG2)
        snprintf(tail, room,
                 "): --schedule alg2 updates its files in place, so the run cannot be resumed; nothing was "
                 "written\n");
    else
        snprintf(tail, room,
                 "): the completed sweeps are saved in %s; run the same command with --resume to continue "
                 "from the last one\n",
                 o->dir);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    if (old_int.sa_handler != SIG_IGN) /* (a shell starts background jobs with SIGINT ignored: so be it) */
        sigaction(SIGINT, &sa, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
    armed = 1;
}

void stn_interrupt_disarm(void) {
    if (!armed)
        return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    armed = 0;
}
