/* test_io_pages.c -- the IO memory in 2 MiB pages (base/ring.c, docs/design/026): a window ring of several
 * planes and an IO buffer (stn_io_alloc), each of them whole 2 MiB at least, are physically contiguous over
 * every 2 MiB of their memory, as /proc/self/pagemap tells (the frame of each page: the next page's is the
 * next frame), and the counters (stn_io_pages) say so; the ring's double mapping still shows one memory (a
 * byte written through a plane's second copy is read through its first, and the planes are apart); a ring
 * under 2 MiB is counted in 4 KiB pages.  Exits 77 (skip), saying why, where the frames cannot be told
 * (pagemap shows them to root alone) or the kernel refuses MADV_COLLAPSE (before Linux 6.1). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SKIP 77
#define HUGE ((size_t)2 << 20)

static int pagemap = -1;

/* The frame of the page at p (touched first), 0 when it cannot be told. */
static uint64_t frame(char *p) {
    *(volatile char *)p = *(volatile char *)p;
    uint64_t e = 0;
    if (pread(pagemap, &e, sizeof e, (off_t)((uintptr_t)p / 4096 * sizeof e)) != (ssize_t)sizeof e)
        return 0;
    return (e >> 63) ? e & ((1ULL << 55) - 1) : 0;
}

/* How many of the pages of [p, p + n) do not follow the page before them in the file or buffer (*prev: that
 * page's frame, updated) within a 2 MiB of it (`start`: the offset of p in it); -1 when a frame cannot be
 * told. */
static long breaks(char *p, size_t n, size_t start, uint64_t *prev) {
    long b = 0;
    for (size_t i = 0; i < n; i += 4096) {
        uint64_t f = frame(p + i);
        if (f == 0)
            return -1;
        if ((start + i) % HUGE != 0 && f != *prev + 1)
            b++;
        *prev = f;
    }
    return b;
}

int main(void) {
    pagemap = open("/proc/self/pagemap", O_RDONLY);
    char probe = 0;
    if (pagemap < 0 || frame(&probe) == 0) {
        printf("SKIP: /proc/self/pagemap shows no page frames to this user (root sees them)\n");
        return SKIP;
    }
    uint64_t huge0, small0, huge, small;
    int err, refused0 = stn_io_pages(&huge0, &small0, &err);
    /* a ring of 6 planes of 1 MiB: 6 MiB, three whole 2 MiB of the memfd */
    size_t bytes = (size_t)1 << 20;
    int64_t nplanes = 6;
    char *ring = stn_ring_alloc(bytes, nplanes);
    if (!ring) {
        printf("FAIL: stn_ring_alloc: %s\n", stn_errmsg());
        return 1;
    }
    int refused = stn_io_pages(&huge, &small, &err);
    if (refused > refused0) {
        printf("SKIP: the kernel refuses MADV_COLLAPSE on a memfd: %s\n", strerror(err));
        return SKIP;
    }
    if (huge - huge0 != 3 * HUGE || small != small0) {
        printf("FAIL: a 6 MiB ring counted %llu bytes in 2 MiB pages and %llu in 4 KiB pages\n",
               (unsigned long long)(huge - huge0), (unsigned long long)(small - small0));
        return 1;
    }
    long b = 0;
    uint64_t prev = 0;
    for (int64_t q = 0; q < nplanes; q++) { /* plane q: the memfd's [q * bytes, (q + 1) * bytes) */
        long bq = breaks(ring + (size_t)q * 2 * bytes, bytes, (size_t)q * bytes, &prev);
        if (bq < 0) {
            printf("FAIL: pagemap tells no frame for a page of plane %lld\n", (long long)q);
            return 1;
        }
        b += bq;
    }
    if (b != 0) {
        printf("FAIL: the ring's planes are not contiguous within each 2 MiB: %ld breaks\n", b);
        return 1;
    }
    for (int64_t q = 0; q < nplanes; q++) {
        char *plane = ring + (size_t)q * 2 * bytes;
        plane[bytes + 123] = (char)(q + 1); /* the second copy */
    }
    for (int64_t q = 0; q < nplanes; q++)
        if (ring[(size_t)q * 2 * bytes + 123] != (char)(q + 1)) {
            printf("FAIL: plane %lld's two copies are not one memory\n", (long long)q);
            return 1;
        }
    stn_ring_free(ring, bytes, nplanes);

    /* a ring under 2 MiB: counted in 4 KiB pages, no refusal */
    stn_io_pages(&huge0, &small0, &err);
    char *small_ring = stn_ring_alloc(64 << 10, 3);
    refused0 = refused;
    refused = stn_io_pages(&huge, &small, &err);
    if (!small_ring || huge != huge0 || small - small0 != 3 * (64 << 10) || refused != refused0) {
        printf("FAIL: a ring of 192 KiB: %s, counted %llu huge and %llu small bytes, %d refusals\n",
               small_ring ? "made" : stn_errmsg(), (unsigned long long)(huge - huge0),
               (unsigned long long)(small - small0), refused - refused0);
        return 1;
    }
    stn_ring_free(small_ring, 64 << 10, 3);

    /* an IO buffer of 5 MiB + 4 KiB: its first 4 MiB in 2 MiB pages, 2 MiB aligned */
    size_t n = 5 * ((size_t)1 << 20) + 4096;
    char *buf = stn_io_alloc(n, 512);
    refused = stn_io_pages(&huge, &small, &err);
    if (!buf || (uintptr_t)buf % HUGE != 0 || refused != refused0) {
        printf("FAIL: stn_io_alloc of %zu bytes: %s (at %p, %d refusals: %s)\n", n,
               buf ? "made" : stn_errmsg(), (void *)buf, refused - refused0, strerror(err));
        return 1;
    }
    if (huge - huge0 != 2 * HUGE || small - small0 != 3 * (64 << 10) + n - 2 * HUGE) {
        printf("FAIL: an IO buffer of %zu bytes counted %llu bytes in 2 MiB pages\n", n,
               (unsigned long long)(huge - huge0));
        return 1;
    }
    b = breaks(buf, 2 * HUGE, 0, &prev);
    if (b != 0) { /* (-1: a page without a frame) */
        printf("FAIL: the IO buffer's first 4 MiB are not contiguous within each 2 MiB: %ld breaks\n", b);
        return 1;
    }
    for (size_t i = 0; i < n; i += 4096)
        if (buf[i] != 0) {
            printf("FAIL: the IO buffer is not zeroed at %zu\n", i);
            return 1;
        }
    stn_free(buf);
    printf("PASS: a 6 MiB ring and a 5 MiB IO buffer in 2 MiB pages, contiguous; a 192 KiB ring in 4 KiB "
           "pages\n");
    return 0;
}
