/* stats.c -- timers per phase, and the process' resident memory (peak RSS, PSS).  The engine's
 * own allocations are counted in alloc.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stn_median(double *a, int n) {
    if (n <= 0)
        return 0;
    qsort(a, (size_t)n, sizeof *a, cmp_double);
    return a[(n - 1) / 2];
}

double stn_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t stn_req_floor(int k) { return k <= 0 ? 0 : (uint64_t)4096 << k; }

void stn_req_count(stn_req_sizes *h, int write, uint64_t bytes) {
    int k = 0;
    while (k + 1 < STN_REQ_BUCKETS && bytes >= ((uint64_t)4096 << (k + 1)))
        k++;
    h->count[write != 0][k]++;
    h->bytes[write != 0][k] += bytes;
}

/* When the runtime's code was loaded: constructors run after exec and the dynamic loader, before main. */
static double loaded_at;
__attribute__((constructor)) static void stamp_load(void) { loaded_at = stn_now(); }

/* The kernel's start time of the process (fork, not exec): 0 if /proc does not say. */
static double forked_age(void) {
    FILE *f = fopen("/proc/self/stat", "re");
    char buf[1024];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* (the command's name may hold spaces and parentheses) */
    unsigned long long start = 0;
    /* after ") ": state, then fields 4..21; starttime is field 22, in clock ticks since boot */
    if (!p ||
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
               &start) != 1)
        return 0;
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
        return 0;
    double age = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - (double)start / (double)hz;
    return age > 0 && age < 1e9 ? age : 0;
}

double stn_process_age(void) {
    double forked = forked_age(), loaded = loaded_at > 0 ? stn_now() - loaded_at : 0;
    /* a shell that runs its last command execs it in place (bash -c '...; ./prog'), as do wrappers
     * (exec ./prog): the process then started long before this program did; 1 s is far more than the
     * dynamic loader takes */
    return forked > loaded + 1.0 || forked <= 0 ? loaded : forked;
}

static const char *const phase_names[STN_PHASE_N] = {"read", "write", "copy", "compute", "wait", "init"};

const char *stn_phase_name(int phase) {
    return phase >= 0 && phase < STN_PHASE_N ? phase_names[phase] : "unknown";
}

void stn_stats_add_time(stn_stats *st, int phase, double t0) {
    if (st && phase >= 0 && phase < STN_PHASE_N)
        st->seconds[phase] += stn_now() - t0;
}

/* ------------------------------------------------------------------ peak RSS */

/* VmHWM of /proc/self/status, in bytes (0 if unreadable).  Unlike getrusage's ru_maxrss it
 * can be reset (clear_refs), so a process that runs several stencils reports each one. */
static uint64_t read_vmhwm(void) {
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024u;
}

/* The proportional set size now (/proc/self/smaps_rollup "Pss"): resident memory with a page
 * mapped twice counted once, as the memory cgroup counts it (RSS counts each mapping; the
 * out-of-core window maps its rings twice).  0 where the kernel does not say. */
uint64_t stn_pss_bytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "re");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Pss: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib * 1024u;
}

uint64_t stn_peak_rss_bytes(void) {
    uint64_t hwm = read_vmhwm();
    if (hwm)
        return hwm;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* KiB on Linux */
}

void stn_stats_reset_peaks(void) {
    stn_alloc_reset_peak();
    /* "5" resets the peak RSS to the current RSS (Linux >= 4.0); failure only means the
     * report shows the process' peak instead of this run's. */
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, "5", 1);
        (void)w;
        close(fd);
    }
}
