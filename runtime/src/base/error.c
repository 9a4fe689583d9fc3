/* error.c -- the thread-local "last error" message of the runtime. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define STN_ERRMSG_MAX 2048

/* Thread-local so that worker threads (later: IO threads) never overwrite each other's. */
static __thread char errmsg[STN_ERRMSG_MAX];

const char *stn_errmsg(void) { return errmsg; }

int stn_error(int status, const char *fmt, ...) {
    /* Format into a scratch buffer first: callers often wrap the previous message,
     * stn_error(st, "context: %s", stn_errmsg()), which would otherwise overlap. */
    char tmp[STN_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(errmsg, tmp, sizeof tmp);
    return status;
}

void stn_error_clear(void) { errmsg[0] = '\0'; }

int stn_neg_errno(int e) { return e > 0 ? -e : -EIO; }

const char *stn_fmt_bytes(char *buf, size_t n, uint64_t bytes) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(buf, n, "%.2f %s", v, units[u]);
    return buf;
}
