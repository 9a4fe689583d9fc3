/* rate_history.c -- the cache's record of what the loops of earlier runs took on this machine
 * ($CACHE/rates/): its keys, its files read, and what Blk-Tune ranks a finalist with from them
 * (docs/out-of-core.md, "Earlier runs' loops"; design 007).
 *
 * Expects: a run (its program, grid, options and device), a plan and its cache tiles.  Guarantees: the
 * same key for the same machine, program, grid and plan in every process (the engine's record,
 * engines/ooc/ooc_history.c, writes what this reads); a file that is missing, another key's or
 * unreadable gives no runs, and a line that is not a run is skipped; nothing here writes.  The ranking
 * (stn_rate_history_rank) fits each kept loop's rate again under the tuner's own model, so a finalist with
 * loops kept is weighed by what those loops took, one without them by its startup sample (scaled by the
 * machine's ratios where there are enough: the same rates each plan's own run would predict with). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "plan/stn_ooc.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int stn_rate_history_mode(void) {
    const char *env = getenv("STENCILC_RATE_HISTORY");
    return !env ? 1 : strcmp(env, "0") == 0 ? 0 : strcmp(env, "always") == 0 ? 2 : 1;
}

int stn_rate_history_applies(const stn_run *r, const stn_ooc_plan *p) {
    return stn_rate_history_mode() && r->o->tier == STN_TIER_AIO && !r->part && !r->fold.W &&
           !r->hw.described && r->hw.cells_per_second <= 0 && r->o->schedule != STN_SCHED_ALG2 &&
           p->schedule == STN_SCHED_REF;
}

int stn_rate_history_path(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], int machine,
                          char *path, size_t n, char *what, size_t wn) {
    const stn_program_desc *d = r->d;
    char host[256] = "?", base[3072], dev[256];
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    /* the device of --dir: the loop's waits are its */
    if (stn_dev_identity(r->o->dir, dev, sizeof dev) != 0)
        snprintf(dev, sizeof dev, "?");
    int rc = stn_cache_base(base, sizeof base);
    if (rc)
        return rc;
    const char *text = d->source_text ? d->source_text : d->name;
    int w = snprintf(what, wn, "host %s, %d threads, device %s", host, stn_omp_max_threads(), dev);
    if (machine && w >= 0 && (size_t)w < wn)
        w += snprintf(what + w, wn - (size_t)w, ": a loop's fitted kernels' rate over its startup sample");
    else if (w >= 0 && (size_t)w < wn)
        w += snprintf(what + w, wn - (size_t)w,
                      ", stencil %s (%s, source hash %016" PRIx64 "), compiler %s, grid %" PRId64 "x%" PRId64
                      "x%" PRId64 " of %d-byte cells, blocks r %" PRId64 " q %" PRId64 " bt %" PRId64
                      " axis %d strip %d, cache tiles %" PRId64 "x%" PRId64,
                      d->name, d->source ? d->source : "?", stn_fnv(STN_FNV_BASIS, text, strlen(text)),
                      d->compiler_version ? d->compiler_version : "?", r->o->size[0], r->o->size[1],
                      r->o->size[2], d->elem_size, p->r.b, p->q.nblocks > 1 ? p->q.b : 0, p->bt, p->r.axis,
                      (int)p->strip, tile[0], tile[1]);
    if (w < 0 || (size_t)w >= wn)
        return -ENAMETOOLONG;
    w = snprintf(path, n, "%s/rates/%s%016" PRIx64 ".txt", base, machine ? "machine-" : "",
                 stn_fnv(STN_FNV_BASIS, what, strlen(what)));
    return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

int stn_rate_history_read(const char *path, const char *what, int keep, stn_hist_run *run,
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
            run[n] = (stn_hist_run){v, loop, (int64_t)s0, (int64_t)steps};
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

double stn_quantile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double at = q * (n - 1);
    int lo = (int)at, hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (at - lo) * (v[hi] - v[lo]);
}

double stn_rate_history_machine(const stn_run *r, const stn_ooc_plan *p, const int64_t tile[2], int *runs,
                                char *path, size_t n) {
    char what[1024];
    stn_hist_run run[STN_BIAS_RUNS];
    double ratio[STN_BIAS_RUNS];
    *runs = 0;
    if (stn_rate_history_path(r, p, tile, 1, path, n, what, sizeof what)) {
        stn_error_clear();
        return 0;
    }
    int k = stn_rate_history_read(path, what, STN_BIAS_RUNS, run, NULL);
    if (k < STN_BIAS_LEAST)
        return 0;
    for (int i = 0; i < k; i++)
        ratio[i] = run[i].rate;
    *runs = k;
    return stn_quantile(ratio, k, 0.25);
}

void stn_ooc_part_time(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                       const stn_time_model *tm, stn_time_pred *t) {
    stn_ooc_plan c = *p;
    c.nsweeps = s0 + (steps + c.bt - 1) / c.bt;
    c.steps = s0 * c.bt + steps;
    stn_ooc_predict_time(m, &c, s0, tm, t);
}

/* The seconds of those sweeps without the transfers and exchanges (a kept loop's seconds are its sweeps'). */
static double part_seconds(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                           const stn_time_model *tm) {
    stn_time_pred t;
    stn_ooc_part_time(m, p, s0, steps, tm, &t);
    return t.total - t.xfer - t.exchange;
}

double stn_ooc_fit_kernels(const stn_ooc_model *m, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                           double wall, double guess, const stn_time_model *model) {
    stn_time_model tm = *model;
    double lo = log2(guess) - 4, hi = log2(guess) + 4;
    tm.cells_per_second = exp2(hi);
    if (!(wall > 0) || !(guess > 0) || part_seconds(m, p, s0, steps, &tm) > wall)
        return 0; /* (the model's IO alone is longer: the kernels' rate cannot make it so short) */
    for (int it = 0; it < 48; it++) {
        double mid = 0.5 * (lo + hi);
        tm.cells_per_second = exp2(mid);
        if (part_seconds(m, p, s0, steps, &tm) > wall)
            lo = mid; /* the kernels must be faster */
        else
            hi = mid;
    }
    return exp2(0.5 * (lo + hi));
}

int stn_rate_history_rank(const stn_run *r, const stn_ooc_model *m, const stn_ooc_plan *p,
                          const int64_t tile[2], const stn_time_model *tm, double sample, double *rate) {
    char path[PATH_MAX], what[1024];
    stn_hist_run run[STN_HISTORY_RUNS];
    double v[STN_HISTORY_RUNS];
    *rate = sample;
    if (!(sample > 0) || !stn_rate_history_applies(r, p))
        return 0;
    if (stn_rate_history_path(r, p, tile, 0, path, sizeof path, what, sizeof what)) {
        stn_error_clear();
        return 0;
    }
    int n = stn_rate_history_read(path, what, STN_HISTORY_RUNS, run, NULL), k = 0;
    for (int i = 0; i < n; i++) { /* (a loop the model gives to the device, or a line of before: as kept) */
        double f = run[i].steps > 0
                       ? stn_ooc_fit_kernels(m, p, run[i].s0, run[i].steps, run[i].loop, run[i].rate, tm)
                       : 0;
        v[k++] = f > 0 ? f : run[i].rate;
    }
    if (k > 0) {
        *rate = stn_quantile(v, k, 0.5);
        return k;
    }
    int runs;
    double q = stn_rate_history_machine(r, p, tile, &runs, path, sizeof path);
    if (runs > 0)
        *rate = sample * q;
    return 0;
}
