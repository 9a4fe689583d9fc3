/* npy_tool -- the runtime's .npy code as a command, for test_npy_numpy.py:
 *   npy_tool write PATH DESCR D0 [D1 ...]   write the test pattern with the atomic writer
 *   npy_tool read  PATH DESCR D0 [D1 ...]   load with stn_npy_load and compare with the pattern
 * DESCR is <f4 or <f8; D0.. is the shape (C order).  Exit 0: ok, 1: wrong data, 3: the runtime
 * refused (its message on stderr), 2: usage. */
#include "stn_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The same formula as pattern() in test_npy_numpy.py, computed in double. */
static double pattern(int64_t i) { return (double)i * 0.5 - 7.25 + (double)(i % 7) * 0.125; }

static int write_pattern(const char *path, const char *descr, int ndim, const int64_t *shape, char *buf,
                         int64_t n, size_t nbytes) {
    int f32 = descr[2] == '4';
    for (int64_t i = 0; i < n; i++) {
        if (f32)
            ((float *)buf)[i] = (float)pattern(i);
        else
            ((double *)buf)[i] = pattern(i);
    }
    stn_npy_writer *w;
    stn_stats st = {0};
    int rc = stn_npy_writer_open(path, descr, ndim, shape, &w);
    if (rc == 0)
        rc = stn_npy_writer_write(w, buf, nbytes, &st);
    if (rc == 0)
        rc = stn_npy_writer_commit(w);
    else
        stn_npy_writer_abort(w);
    if (rc) {
        fprintf(stderr, "%s\n", stn_errmsg());
        return 3;
    }
    return st.bytes_written == nbytes ? 0 : 1;
}

static int read_pattern(const char *path, const char *descr, int ndim, const int64_t *shape, char *buf,
                        int64_t n, size_t nbytes) {
    int f32 = descr[2] == '4';
    stn_stats st = {0};
    if (stn_npy_load(path, descr, ndim, shape, buf, &st) != 0) {
        fprintf(stderr, "%s\n", stn_errmsg());
        return 3;
    }
    for (int64_t i = 0; i < n; i++) {
        double v = f32 ? (double)((float *)buf)[i] : ((double *)buf)[i];
        double want = f32 ? (double)(float)pattern(i) : pattern(i);
        if (v != want) {
            fprintf(stderr, "%s: element %lld is %.17g, expected %.17g\n", path, (long long)i, v, want);
            return 1;
        }
    }
    return st.bytes_read == nbytes ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 12 || (strcmp(argv[3], "<f4") != 0 && strcmp(argv[3], "<f8") != 0)) {
        fprintf(stderr, "usage: npy_tool write|read PATH <f4|<f8 D0 [D1 ...]\n");
        return 2;
    }
    const char *path = argv[2], *descr = argv[3];
    int ndim = argc - 4, f32 = descr[2] == '4';
    int64_t shape[8], n = 1;
    for (int k = 0; k < ndim; k++) {
        shape[k] = atoll(argv[4 + k]);
        n *= shape[k];
    }
    size_t nbytes = (size_t)n * (f32 ? 4 : 8);
    char *buf = malloc(nbytes + 1);
    int rc = strcmp(argv[1], "write") == 0 ? write_pattern(path, descr, ndim, shape, buf, n, nbytes)
                                           : read_pattern(path, descr, ndim, shape, buf, n, nbytes);
    free(buf);
    return rc;
}
