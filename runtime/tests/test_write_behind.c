/* test_write_behind.c -- a .npy written through the page cache keeps little of it (base/file.c,
 * stn_afile_behind): 48 MiB written plane by plane (stn_npy_writer_pwrite), and 40 MiB in one call
 * (stn_npy_writer_write), leave at most STN_AFILE_BEHIND and two spans of the file in the cache before
 * the commit (mincore of the temporary), where the cache would otherwise hold all of it; scattered rows
 * of 8 KiB (left to the kernel's write-back) and both files come out byte for byte as written.  Under
 * $TMPDIR or /var/tmp; exits 77 (skip), saying why, on tmpfs (its pages are the file: none is dropped). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"
#include "test_util.h"

#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>

#define MIB ((size_t)1 << 20)
#define SKIP 77

static double value(uint64_t i) { return (double)(i * 2654435761u % 1000003u) * 0.5; }

/* The file's bytes in the page cache now. */
static size_t resident(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size == 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    size_t n = (size_t)sb.st_size, pages = (n + 4095) / 4096, in = 0;
    void *m = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *v = malloc(pages);
    if (m != MAP_FAILED && v && mincore(m, n, v) == 0)
        for (size_t i = 0; i < pages; i++)
            in += v[i] & 1;
    free(v);
    if (m != MAP_FAILED)
        munmap(m, n);
    close(fd);
    return in * 4096;
}

/* The committed file's data equals value(0..n). */
static int holds(const char *path, size_t n) {
    int64_t shape[1] = {(int64_t)n};
    double *got = malloc(n * sizeof *got);
    int ok = got && stn_npy_load(path, "<f8", 1, shape, got, NULL) == 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = got[i] == value(i);
    free(got);
    return ok;
}

/* 48 MiB of doubles, written 1 MiB at a time in order; the cache bounded, the file right. */
static void planes(void) {
    const char *path = t_path("planes.npy");
    size_t n = 48 * MIB / sizeof(double), per = MIB / sizeof(double);
    int64_t shape[1] = {(int64_t)n};
    double *buf = malloc(MIB);
    stn_npy_writer *w = NULL;
    CHECK(buf && stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    for (size_t p = 0; w && buf && p < n / per; p++) {
        for (size_t i = 0; i < per; i++)
            buf[i] = value(p * per + i);
        CHECK(stn_npy_writer_pwrite(w, buf, MIB, p * MIB, NULL) == 0);
    }
    size_t in = w ? resident(stn_npy_writer_tmp(w)) : 0;
    fprintf(stderr, "planes: %zu MiB of 48 in the cache before the commit\n", in / MIB);
    CHECK(in <= STN_AFILE_BEHIND + 2 * STN_AFILE_SPAN + MIB);
    CHECK(w && stn_npy_writer_commit(w) == 0);
    CHECK(holds(path, n));
    free(buf);
}

/* 40 MiB in one stn_npy_writer_write: written in pieces, each sent on. */
static void whole(void) {
    const char *path = t_path("whole.npy");
    size_t n = 40 * MIB / sizeof(double);
    int64_t shape[1] = {(int64_t)n};
    double *buf = malloc(n * sizeof *buf);
    stn_npy_writer *w = NULL;
    for (size_t i = 0; buf && i < n; i++)
        buf[i] = value(i);
    CHECK(buf && stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    CHECK(w && buf && stn_npy_writer_write(w, buf, n * sizeof *buf, NULL) == 0);
    size_t in = w ? resident(stn_npy_writer_tmp(w)) : 0;
    fprintf(stderr, "whole: %zu MiB of 40 in the cache before the commit\n", in / MIB);
    CHECK(in <= STN_AFILE_BEHIND + STN_AFILE_BEHIND / 4 + 2 * STN_AFILE_SPAN + MIB);
    CHECK(w && stn_npy_writer_commit(w) == 0);
    CHECK(holds(path, n));
    free(buf);
}

/* Rows of 8 KiB, the even ones first, then the odd ones backwards: every byte where it belongs. */
static void scattered(void) {
    const char *path = t_path("rows.npy");
    size_t row = 1024, nrows = 1536, n = row * nrows;
    int64_t shape[1] = {(int64_t)n};
    double *buf = malloc(row * sizeof *buf);
    stn_npy_writer *w = NULL;
    CHECK(buf && stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    for (size_t k = 0; w && buf && k < nrows; k++) {
        size_t r = k < nrows / 2 ? 2 * k : nrows - 1 - 2 * (k - nrows / 2);
        for (size_t i = 0; i < row; i++)
            buf[i] = value(r * row + i);
        CHECK(stn_npy_writer_pwrite(w, buf, row * sizeof *buf, r * row * sizeof *buf, NULL) == 0);
    }
    CHECK(w && stn_npy_writer_commit(w) == 0);
    CHECK(holds(path, n));
    free(buf);
}

int main(void) {
    t_mkdir_disk("stn_behind");
    struct statfs fs;
    if (statfs(t_dir, &fs) == 0 && fs.f_type == TMPFS_MAGIC) {
        fprintf(stderr, "skip: %s is tmpfs, whose pages are the file (none is dropped)\n", t_dir);
        return SKIP;
    }
    planes();
    whole();
    scattered();
    return t_result();
}
