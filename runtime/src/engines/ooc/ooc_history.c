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

/* (the keys, the files' reading and the figures: plan/rate_history.c) */
#define STN_HISTORY_KEEP (STN_BIAS_RUNS > STN_HISTORY_RUNS ? STN_BIAS_RUNS : STN_HISTORY_RUNS)

static int history_applies(const ooc *e) { return stn_rate_history_applies(e->r, &e->plan); }

static int history_path(const ooc *e, int machine, char *path, size_t n, char *what, size_t wn) {
    return stn_rate_history_path(e->r, &e->plan, e->res->ib.tile, machine, path, n, what, wn);
}

/* No loop of this key: the startup sample times the lower quartile of the machine's ratios, from
 * STN_BIAS_LEAST of them.  Not their median: a first run has only its sample, which scatters from one start
 * to the next by more than the ratios' bias (0.82-1.10 in nine runs of the full profile's long runs, median
 * 0.95), and its prediction is to be exceeded rarely; the key's own loops, from its second run on, give the
 * median. */
static void history_use_machine(ooc *e) {
    char path[PATH_MAX];
    stn_result *res = e->res;
    int n;
    double k = stn_rate_history_machine(e->r, &e->plan, res->ib.tile, &n, path, sizeof path);
    if (n < STN_BIAS_LEAST)
        return;
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
    stn_hist_run run[STN_HISTORY_RUNS];
    double rate[STN_HISTORY_RUNS];
    stn_result *res = e->res;
    e->hist_startup = res->cells_per_second; /* (the machine's ratio is over this) */
    if (!history_applies(e) || res->cells_per_second <= 0 ||
        history_path(e, 0, path, sizeof path, what, sizeof what))
        return 0;
    int n = stn_rate_history_read(path, what, STN_HISTORY_RUNS, run, NULL);
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
    double med = stn_quantile(rate, n, 0.5);
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
    stn_hist_run run[STN_HISTORY_KEEP];
    int n = stn_rate_history_read(path, what, keep, run, lines),
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
    double least = stn_rate_history_mode() == 2 ? 0 : STN_HISTORY_MIN_SECONDS; /* (always: for tests) */
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
