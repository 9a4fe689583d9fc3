/* ooc_history.c -- what the loops of earlier runs of the same program, grid and plan took on this machine,
 * for the time model of the next (docs/out-of-core.md, "The time model"; design 007).
 *
 * Expects: a run on the aio tier whose kernels' rate was measured at startup (not a --machine file's), one
 * process, the reference schedule, no folded grid.  Guarantees: after a loop whose kernels ran at least
 * STN_HISTORY_MIN_SECONDS without a re-plan, the kernels' rate at which the time model gives that loop its
 * measured seconds (stn_ooc_fit_rate) is added to $CACHE/rates/KEY.txt, the last STN_HISTORY_RUNS kept, the
 * file written atomically; a later run with the same key predicts with their median in place of its startup
 * sample, and cells_per_second_source says so.  The startup sample is a second of the kernels: on a shared
 * machine it scatters by 1.6x from one start to the next while the loops of one shape agree within 5%.  A
 * cache that cannot be read or written leaves the startup sample in use; STENCILC_RATE_HISTORY=0 switches
 * both off, =always keeps loops of any length (for tests).  The file: a first line "# " and the key in words,
 * then a line a run: the rate, its kernels' cells per second of the compute phase, its loop's seconds, the
 * Unix time, the first sweep and the steps of that loop.  The rate is fitted again at use with the using
 * run's share and curves, to the loop's seconds (its steps from its first sweep).
 * A first run of a key has no such loops, but the machine has others: the same loop also adds the fitted
 * rate over the run's own startup sample to $CACHE/rates/machine-HASH.txt (the host, the threads and the
 * device only; the last STN_BIAS_RUNS of any program; only of loops the model, at the startup's rate, gives
 * to the kernels rather than the device), and a run without loops of its own key, with at least
 * STN_BIAS_LEAST of those, predicts with its startup sample times their lower quartile: on this VM a loop's
 * fitted rate came out 0.82-1.10 of its startup sample (nine long runs of heat3d, median 0.95), and first
 * runs took up to 1.19x their prediction (docs/benchmarks.md, section 9).  Its lines: the ratio, the fitted
 * rate, the startup's, the Unix time, the stencil's name. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"
#include "io/stn_probe.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A loop's kernels must run this long to be kept (shorter ones are as noisy as the startup sample); the
 * last STN_HISTORY_RUNS runs are kept, and their median taken. */
#define STN_HISTORY_MIN_SECONDS 5.0
#define STN_HISTORY_RUNS 5
/* The machine's file: the last STN_BIAS_RUNS ratios kept, their lower quartile used from STN_BIAS_LEAST of
 * them */
#define STN_BIAS_RUNS 9
#define STN_BIAS_LEAST 3
#define STN_HISTORY_KEEP (STN_BIAS_RUNS > STN_HISTORY_RUNS ? STN_BIAS_RUNS : STN_HISTORY_RUNS)

/* STENCILC_RATE_HISTORY: 0 off, 1 (unset or anything else) on, 2 "always" (loops of any length kept). */
static int history_mode(void) {
    const char *env = getenv("STENCILC_RATE_HISTORY");
    return !env ? 1 : strcmp(env, "0") == 0 ? 0 : strcmp(env, "always") == 0 ? 2 : 1;
}

static int history_applies(const ooc *e) {
    const stn_run *r = e->r;
    return history_mode() && r->o->tier == STN_TIER_AIO && !r->part && !r->fold.W && !r->hw.described &&
           r->hw.cells_per_second <= 0 && !e->alg2 && e->plan.schedule == STN_SCHED_REF;
}

/* What decides the loop's rate: the machine (its name, the threads, the device of --dir), the program (its
 * .stn text and the compiler's version), the grid, the element and the plan's blocks and cache tiles; for the
 * machine's file (`machine`), the machine only.  The file's name is a hash of it; its first line says it in
 * words. */
static int history_path(const ooc *e, int machine, char *path, size_t n, char *what, size_t wn) {
    const stn_run *r = e->r;
    const stn_ooc_plan *p = &e->plan;
    char host[256] = "?", base[3072], dev[256];
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    /* the device of --dir: the loop's waits are its */
    if (stn_dev_identity(r->o->dir, dev, sizeof dev) != 0)
        snprintf(dev, sizeof dev, "?");
    int rc = stn_cache_base(base, sizeof base);
    if (rc)
        return rc;
    const char *text = e->d->source_text ? e->d->source_text : e->d->name;
    int w = snprintf(what, wn, "host %s, %d threads, device %s", host, stn_omp_max_threads(), dev);
    if (machine && w >= 0 && (size_t)w < wn)
        w += snprintf(what + w, wn - (size_t)w, ": a loop's fitted kernels' rate over its startup sample");
    else if (w >= 0 && (size_t)w < wn)
        w += snprintf(what + w, wn - (size_t)w,
                      ", stencil %s (%s, source hash %016" PRIx64 "), compiler %s, grid %" PRId64 "x%" PRId64
                      "x%" PRId64 " of %d-byte cells, blocks r %" PRId64 " q %" PRId64 " bt %" PRId64
                      " axis %d strip %d, cache tiles %" PRId64 "x%" PRId64,
                      e->d->name, e->d->source ? e->d->source : "?",
                      stn_fnv(STN_FNV_BASIS, text, strlen(text)),
                      e->d->compiler_version ? e->d->compiler_version : "?", r->o->size[0], r->o->size[1],
                      r->o->size[2], e->d->elem_size, p->r.b, p->q.nblocks > 1 ? p->q.b : 0, p->bt, p->r.axis,
                      (int)p->strip, e->res->ib.tile[0], e->res->ib.tile[1]);
    if (w < 0 || (size_t)w >= wn)
        return -ENAMETOOLONG;
    w = snprintf(path, n, "%s/rates/%s%016" PRIx64 ".txt", base, machine ? "machine-" : "",
                 stn_fnv(STN_FNV_BASIS, what, strlen(what)));
    return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

/* The runs of the file whose first line is `what` (no file, another key's: none), the last `keep` of them
 * oldest first: their first figures (a rate, or the machine's ratio), and their lines when `lines` is not
 * NULL.  Their number. */
#define STN_HISTORY_LINE 160
typedef struct hist_run {
    double rate, loop; /* the fitted rate (or the machine's ratio), the sweeps' seconds */
    int64_t s0, steps; /* the sweeps they were, from s0 on for `steps` steps (0, 0: a line of before) */
} hist_run;

static int history_read(const char *path, const char *what, int keep, hist_run *run,
                        char (*lines)[STN_HISTORY_LINE]) {
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    size_t k = strlen(what);
    if (fgets(line, sizeof line, f) && strncmp(line, "# ", 2) == 0 && strncmp(line + 2, what, k) == 0 &&
        line[2 + k] == '\n') {
        while (fgets(line, sizeof line, f)) {
            double v, kernels, loop; /* (the fitted rate, the kernels' own, the sweeps' seconds; or the
                                        machine's ratio, the fitted rate, the startup's) */
            long long when, s0 = 0, steps = 0;
            int used = 0;
            if (strlen(line) >= STN_HISTORY_LINE || strchr(line, '\n') == NULL ||
                sscanf(line, "%lf %lf %lf %lld%n", &v, &kernels, &loop, &when, &used) != 4 || !isfinite(v) ||
                v <= 0 || v > 1e18)
                continue; /* (a line of no run: skipped) */
            if (sscanf(line + used, " %lld %lld", &s0, &steps) != 2 || s0 < 0 || steps < 1 || !(loop > 0))
                s0 = steps = 0; /* (the machine's lines, and the runs' before 2026-11-29 evening) */
            if (n == keep) {    /* (the oldest out) */
                memmove(run, run + 1, (size_t)(keep - 1) * sizeof *run);
                if (lines)
                    memmove(lines, lines + 1, (size_t)(keep - 1) * sizeof *lines);
                n--;
            }
            run[n] = (hist_run){v, loop, (int64_t)s0, (int64_t)steps};
            if (lines)
                snprintf(lines[n], sizeof lines[n], "%s", line);
            n++;
        }
    }
    fclose(f);
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The quantile q of v[0..n) (n > 0; sorted in place), between two values interpolated: q = 0.5, the median.
 */
static double quantile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double at = q * (n - 1);
    int lo = (int)at, hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (at - lo) * (v[hi] - v[lo]);
}

/* No loop of this key: the startup sample times the lower quartile of the machine's ratios, from
 * STN_BIAS_LEAST of them.  Not their median: a first run has only its sample, which scatters from one start
 * to the next by more than the ratios' bias (0.82-1.10 in nine runs of the full profile's long runs, median
 * 0.95), and its prediction is to be exceeded rarely; the key's own loops, from its second run on, give the
 * median. */
static void history_use_machine(ooc *e) {
    char path[PATH_MAX], what[1024];
    hist_run run[STN_BIAS_RUNS];
    double ratio[STN_BIAS_RUNS];
    stn_result *res = e->res;
    if (history_path(e, 1, path, sizeof path, what, sizeof what))
        return;
    int n = history_read(path, what, STN_BIAS_RUNS, run, NULL);
    if (n < STN_BIAS_LEAST)
        return;
    for (int i = 0; i < n; i++)
        ratio[i] = run[i].rate;
    double k = quantile(ratio, n, 0.25);
    char src[sizeof res->rate_source];
    snprintf(
        src, sizeof src,
        "the startup's %.3g times %.3f, the lower quartile of %d earlier runs' loops on this machine (any "
        "program, grid or plan): the rate at which the time model gave each loop its measured seconds over "
        "that run's startup sample (%s); startup: %.300s",
        res->cells_per_second, k, n, path, res->rate_source);
    snprintf(res->rate_source, sizeof res->rate_source, "%s", src);
    res->cells_per_second *= k;
    res->rate_bias_runs = n;
}

int stn_ooc_history_use(ooc *e) {
    char path[PATH_MAX], what[1024];
    hist_run run[STN_HISTORY_RUNS];
    double rate[STN_HISTORY_RUNS];
    stn_result *res = e->res;
    e->hist_startup = res->cells_per_second; /* (the machine's ratio is over this) */
    if (!history_applies(e) || res->cells_per_second <= 0 ||
        history_path(e, 0, path, sizeof path, what, sizeof what))
        return 0;
    int n = history_read(path, what, STN_HISTORY_RUNS, run, NULL);
    if (n == 0) {
        history_use_machine(e);
        return 0;
    }
    /* each loop's rate fitted again with this run's share and curves: the share measured at startup scatters
     * (0.63-0.97 in one bench's runs of one plan), and a rate fitted with another run's share gives its loop
     * other seconds with this one's (where the model's IO alone is longer than that loop: the rate as kept)
     */
    for (int i = 0; i < n; i++) {
        double v =
            run[i].steps > 0 ? stn_ooc_fit_rate(e, run[i].s0, run[i].steps, run[i].loop, run[i].rate) : 0;
        rate[i] = v > 0 ? v : run[i].rate;
    }
    double med = quantile(rate, n, 0.5);
    char src[sizeof res->rate_source];
    snprintf(
        src, sizeof src,
        "the median of %d earlier run%s of this program, grid and plan on this machine: the rate at which "
        "the time model gives each loop its measured seconds (%s), in place of the startup's %.3g: %.300s",
        n, n == 1 ? "" : "s", path, res->cells_per_second, res->rate_source);
    snprintf(res->rate_source, sizeof res->rate_source, "%s", src);
    res->cells_per_second = med;
    res->rate_runs = n;
    return 0;
}

/* Add `line` to the file `path` of key `what`: its last keep - 1 runs kept before it, written to a
 * temporary file and renamed over it (a full or read-only cache: left as it was). */
static void history_add(const char *path, const char *what, int keep, const char *line) {
    char tmp[PATH_MAX + 32], lines[STN_HISTORY_KEEP][STN_HISTORY_LINE];
    hist_run run[STN_HISTORY_KEEP];
    int n = history_read(path, what, keep, run, lines),
        w = snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    if (w < 0 || (size_t)w >= sizeof tmp || stn_mkdir_parents(path)) {
        stn_error_clear();
        return;
    }
    FILE *out = fopen(tmp, "we");
    if (!out)
        return;
    fprintf(out, "# %s\n", what);
    for (int i = n == keep ? 1 : 0; i < n; i++) /* (the oldest dropped when full) */
        fputs(lines[i], out);
    fputs(line, out);
    if (fclose(out) != 0 || rename(tmp, path) != 0)
        unlink(tmp);
}

void stn_ooc_history_note(ooc *e, int64_t s0, int64_t steps) {
    char path[PATH_MAX], what[1024], line[STN_HISTORY_LINE];
    const stn_result *res = e->res;
    double least = history_mode() == 2 ? 0 : STN_HISTORY_MIN_SECONDS; /* (always: for tests) */
    if (!history_applies(e) || res->nreplans > 0 || !(e->hist_compute > least) || !(e->hist_cells > 0) ||
        history_path(e, 0, path, sizeof path, what, sizeof what))
        return;
    /* the kernels' rate that gives the time model this loop's seconds, from a first guess: the kernels'
     * own (cells / kernel seconds / the share under IO, as stn_ooc_refine's) */
    double v =
        stn_ooc_fit_rate(e, s0, steps, e->hist_wall, e->hist_cells / e->hist_compute / stn_ooc_share(e));
    if (!(v > 0))
        return; /* (the loop is the device's: its kernels' rate does not set its time) */
    long long now = (long long)time(NULL);
    snprintf(line, sizeof line, "%.6g %.6g %.6g %lld %" PRId64 " %" PRId64 "\n", v,
             e->hist_cells / e->hist_compute, e->hist_wall, now, s0, steps);
    history_add(path, what, STN_HISTORY_RUNS, line);
    /* the machine's ratio says how the sample errs on the kernels: only of a loop the model gives them (at
     * the startup's rate); an IO-bound loop's fitted rate carries the device's waits, not the kernels' */
    if (!(e->hist_startup > 0) || !stn_ooc_kernels_bound(e, s0, steps, e->hist_startup) ||
        history_path(e, 1, path, sizeof path, what, sizeof what))
        return;
    snprintf(line, sizeof line, "%.6g %.6g %.6g %lld %.40s\n", v / e->hist_startup, v, e->hist_startup, now,
             e->d->name);
    history_add(path, what, STN_BIAS_RUNS, line);
}
