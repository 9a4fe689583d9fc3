/* test_util.h -- the little the runtime tests share: checks, scratch directories, files,
 * and running stn_program_main with its stdout/stderr captured.  Header-only on purpose:
 * every test is a single .c file. */
#ifndef STN_TEST_UTIL_H
#define STN_TEST_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "stn_rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Not every test uses every helper. */
#define T_UNUSED __attribute__((unused))

static int t_failures;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
            t_failures++;                                                                                    \
        }                                                                                                    \
    } while (0)

/* `text` contains `needle`; prints both when not. */
#define CHECK_HAS(text, needle)                                                                              \
    do {                                                                                                     \
        const char *t_text_ = (text), *t_needle_ = (needle);                                                 \
        if (!t_text_ || !strstr(t_text_, t_needle_)) {                                                       \
            fprintf(stderr, "%s:%d: expected to find\n    %s\nin\n    %s\n", __FILE__, __LINE__, t_needle_,  \
                    t_text_ ? t_text_ : "(null)");                                                           \
            t_failures++;                                                                                    \
        }                                                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                                   \
    do {                                                                                                     \
        long long t_a_ = (long long)(a), t_b_ = (long long)(b);                                              \
        if (t_a_ != t_b_) {                                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, #a, #b,    \
                    t_a_, t_b_);                                                                             \
            t_failures++;                                                                                    \
        }                                                                                                    \
    } while (0)

T_UNUSED static int t_result(void) {
    if (t_failures)
        fprintf(stderr, "%d check(s) failed\n", t_failures);
    return t_failures ? 1 : 0;
}

/* ------------------------------------------------------------------ scratch files */

static char t_dir[256];

T_UNUSED static int t_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

T_UNUSED static void t_cleanup(void) {
    if (t_dir[0])
        nftw(t_dir, t_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory `prefix`_XXXXXX under $TMPDIR, else under `fallback`, removed at exit (tests may run in
 * parallel). */
T_UNUSED static const char *t_mkdir_under(const char *fallback, const char *prefix) {
    const char *base = getenv("TMPDIR");
    snprintf(t_dir, sizeof t_dir, "%s/%s_XXXXXX", base && *base ? base : fallback, prefix);
    if (!mkdtemp(t_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    atexit(t_cleanup);
    return t_dir;
}

T_UNUSED static const char *t_mkdir(void) { return t_mkdir_under("/tmp", "stn_test"); }

/* The same on a real file system: under $TMPDIR or /var/tmp (/tmp is often tmpfs). */
T_UNUSED static const char *t_mkdir_disk(const char *prefix) { return t_mkdir_under("/var/tmp", prefix); }

/* dir/name in one of a few rotating buffers. */
T_UNUSED static const char *t_path(const char *name) {
    static char bufs[8][512];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, 512, "%s/%s", t_dir, name);
    return b;
}

T_UNUSED static int t_write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* The whole file, NUL-terminated; NULL if unreadable.  Free it. */
T_UNUSED static char *t_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap)
            buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    if (n)
        *n = len;
    return buf;
}

/* Whether two files hold the same bytes. */
T_UNUSED static int t_files_equal(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca = 0, cb = 0;
    while (same && (ca = fgetc(fa)) != EOF) {
        cb = fgetc(fb);
        same = ca == cb;
    }
    if (same)
        same = fgetc(fb) == EOF;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

T_UNUSED static int t_exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Entries of the scratch directory whose name contains `part` (e.g. ".partial-"). */
T_UNUSED static int t_count_entries(const char *part) {
    DIR *d = opendir(t_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, part) != NULL;
    if (d)
        closedir(d);
    return n;
}

T_UNUSED static int t_count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

/* ------------------------------------------------------------------ running a program */

typedef struct t_run_result {
    int status;
    char *out, *err; /* captured stdout and stderr; freed by the next t_run */
} t_run_result;

static t_run_result t_last;

T_UNUSED static char *t_capture_end(FILE *stream, int fd, int saved, const char *path) {
    fflush(stream);
    dup2(saved, fd);
    close(saved);
    char *text = t_read_file(path, NULL);
    unlink(path);
    return text ? text : strdup("");
}

/* Runs stn_program_main(d, argv) with argv built from the NULL-terminated arguments
 * (argv[0] = the stencil's name). */
T_UNUSED static t_run_result *t_run(const stn_program_desc *d, ...) {
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)d->name;
    va_list ap;
    va_start(ap, d);
    const char *a;
    int has_mode = 0;
    argc += 2; /* room for "--mode incore" right after the name */
    while ((a = va_arg(ap, const char *)) && argc < 63) {
        has_mode |= strncmp(a, "--mode", 6) == 0;
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    argv[argc] = NULL;
    if (has_mode) { /* close the gap */
        memmove(argv + 1, argv + 3, (size_t)(argc - 3 + 1) * sizeof *argv);
        argc -= 2;
    } else { /* these tests exercise the in-core engine; ooc (the default) is tested by pytest */
        argv[1] = (char *)"--mode";
        argv[2] = (char *)"incore";
    }
    free(t_last.out);
    free(t_last.err);
    char out_path[300], err_path[300];
    snprintf(out_path, sizeof out_path, "%s.stdout", t_dir);
    snprintf(err_path, sizeof err_path, "%s.stderr", t_dir);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644),
        fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
    t_last.status = stn_program_main(d, argc, argv);
    t_last.out = t_capture_end(stdout, 1, so, out_path);
    t_last.err = t_capture_end(stderr, 2, se, err_path);
    return &t_last;
}

/* ------------------------------------------------------------------ hand-made .npy files */

/* A .npy file: magic, version major.0, `dict` padded with spaces to numpy's 64-byte
 * alignment and ended by '\n', then `ndata` bytes of data. */
T_UNUSED static void make_npy(const char *path, int major, const char *dict, const void *data, size_t ndata) {
    size_t pre = major == 1 ? 10 : 12, dlen = strlen(dict);
    size_t hlen = dlen + 1;
    hlen += (64 - (pre + hlen) % 64) % 64;
    size_t total = pre + hlen + ndata;
    unsigned char *b = malloc(total);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    for (size_t k = 0; k < pre - 8; k++)
        b[8 + k] = (unsigned char)(hlen >> (8 * k));
    memcpy(b + pre, dict, dlen);
    memset(b + pre + dlen, ' ', hlen - dlen - 1);
    b[pre + hlen - 1] = '\n';
    if (ndata)
        memcpy(b + pre + hlen, data, ndata);
    CHECK(t_write_file(path, b, total) == 0);
    free(b);
}

/* The randomized tests' stream (splitmix64): seeded by the test (STN_TEST_SEED overrides where a test
 * reads it), so that a failure can be replayed. */
static inline uint64_t *stn_test_rng(void) {
    static uint64_t state;
    return &state;
}

static inline uint64_t rnd(void) {
    uint64_t z = (*stn_test_rng() += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A draw in [lo, hi]. */
static inline int64_t between(int64_t lo, int64_t hi) {
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif /* STN_TEST_UTIL_H */
