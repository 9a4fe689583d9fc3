/* progress.c -- the progress line on stderr for runs longer than a few seconds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <stdio.h>
#include <unistd.h>

#define FIRST_AFTER 2.0 /* seconds of silence: short runs print nothing */
#define TTY_EVERY 0.5   /* a terminal line is rewritten in place this often */
#define PIPE_EVERY 5.0  /* a log gets a new line this often */

static volatile int line_open; /* a terminal line is being rewritten: anything else starts a new one */

int stn_progress_line_open(void) { return line_open; }

void stn_progress_start(stn_progress *p, const char *name, int64_t total, double cells_per_step, int quiet) {
    p->name = name;
    p->total = total;
    p->cells_per_step = cells_per_step;
    p->t0 = p->last = stn_now();
    p->enabled = !quiet && total > 0;
    p->tty = isatty(STDERR_FILENO);
    p->shown = 0;
    p->width = 0;
}

static void print_line(stn_progress *p, int64_t done, double now, int final) {
    double el = now - p->t0, rate = el > 0 ? (double)done * p->cells_per_step / el : 0;
    char line[256];
    int pct = p->total ? (int)(100.0 * (double)done / (double)p->total) : 100;
    int n;
    if (final)
        n = snprintf(line, sizeof line, "%s: step %lld/%lld (%d%%), %.3g cells/s, done in %.1f s", p->name,
                     (long long)done, (long long)p->total, pct, rate, el);
    else
        n = snprintf(line, sizeof line, "%s: step %lld/%lld (%d%%), %.3g cells/s, about %.0f s left", p->name,
                     (long long)done, (long long)p->total, pct, rate,
                     done ? el * (double)(p->total - done) / (double)done : 0.0);
    if (p->tty) {
        /* pad with spaces over the rest of a longer previous line */
        fprintf(stderr, "\r%s%*s%s", line, p->width > n ? p->width - n : 0, "", final ? "\n" : "");
        p->width = n;
        line_open = !final;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
    p->shown = 1;
    p->last = now;
}

void stn_progress_step(stn_progress *p, int64_t done) {
    if (!p->enabled || done >= p->total)
        return;
    double now = stn_now();
    if (now - p->t0 < FIRST_AFTER)
        return;
    if (p->shown && now - p->last < (p->tty ? TTY_EVERY : PIPE_EVERY))
        return;
    print_line(p, done, now, 0);
}

void stn_progress_end(stn_progress *p) {
    if (p->enabled && p->shown)
        print_line(p, p->total, stn_now(), 1);
}

void stn_progress_break(void) {
    if (line_open)
        fputc('\n', stderr);
    line_open = 0;
}
