/* log.c -- the warnings of a run (stn_log): kept for the report, printed on stderr unless --quiet. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void stn_warn(stn_log *log, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (log->n < STN_MAX_WARNINGS) {
        char *copy = strdup(buf);
        if (copy)
            log->msg[log->n++] = copy;
    }
    if (!log->quiet)
        fprintf(stderr, "%s: warning: %s\n", log->name, buf);
}

void stn_log_free(stn_log *log) {
    for (int k = 0; k < log->n; k++)
        free(log->msg[k]);
    log->n = 0;
}
