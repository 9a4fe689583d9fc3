/* run.c -- what both engines share with the program that runs them: the run's warnings and the
 * engines' per-field arrays.  Below program.c and the engines (stn_run.h lists the layers), so
 * that neither engine calls up into program.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_run.h"

#include <errno.h>
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

int stn_engine_arrays(const stn_program_desc *d, size_t field_size, void **f, const void ***src, void ***dst,
                      const char *engine) {
    *f = calloc((size_t)d->nfields, field_size);
    *src = calloc((size_t)d->nsrc + 1, sizeof **src);
    *dst = calloc((size_t)d->ndst + 1, sizeof **dst);
    if (!*f || !*src || !*dst)
        return stn_error(-ENOMEM, "out of memory setting up the %s engine", engine);
    return 0;
}
