/* snapread.c -- a C host that reads a --save-to file back through stn_rt.h's stn_snapshots_* calls
 * (test_embed_snapshots.py; docs/embedding.md).
 *
 *   snapread FILE FIELD OUTDIR       prints "count N", "steps S0 S1 ...", "shape NX NY NZ ELEM", and writes
 *                                    each snapshot, as read, to OUTDIR/STEP.raw
 *   snapread FILE FIELD STEP BYTES   reads the snapshot of STEP into a buffer of BYTES bytes
 *
 * Exit 0, or 1 after printing "error RC: MESSAGE" (the runtime's negative errno and message). */
#include "stn_rt.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(int rc) {
    printf("error %d: %s\n", rc, stn_errmsg());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: snapread FILE FIELD OUTDIR | snapread FILE FIELD STEP BYTES\n");
        return 2;
    }
    stn_snapshots *s;
    int rc = stn_snapshots_open(argv[1], &s);
    if (rc)
        return fail(rc);
    if (argc == 5) {
        size_t bytes = (size_t)atoll(argv[4]);
        void *buf = malloc(bytes ? bytes : 1);
        rc = stn_snapshots_read(s, argv[2], atoll(argv[3]), buf, bytes);
        free(buf);
        stn_snapshots_close(s);
        return rc ? fail(rc) : 0;
    }
    int64_t n = stn_snapshots_count(s, argv[2]), shape[3];
    int elem;
    if (n < 0 || (rc = stn_snapshots_shape(s, argv[2], shape, &elem)) != 0) {
        stn_snapshots_close(s);
        return fail(n < 0 ? (int)n : rc);
    }
    int64_t *steps = malloc((size_t)(n ? n : 1) * sizeof *steps);
    size_t bytes = (size_t)(shape[0] * shape[1] * shape[2] * elem);
    void *buf = malloc(bytes);
    rc = steps && buf ? stn_snapshots_steps(s, argv[2], steps, n) : -12;
    printf("count %lld\nsteps", (long long)n);
    for (int64_t i = 0; rc == 0 && i < n; i++)
        printf(" %lld", (long long)steps[i]);
    printf("\nshape %lld %lld %lld %d\n", (long long)shape[0], (long long)shape[1], (long long)shape[2],
           elem);
    for (int64_t i = 0; rc == 0 && i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%lld.raw", argv[3], (long long)steps[i]);
        FILE *f;
        if ((rc = stn_snapshots_read(s, argv[2], steps[i], buf, bytes)) == 0 &&
            (!(f = fopen(path, "wb")) || fwrite(buf, 1, bytes, f) != bytes || fclose(f) != 0))
            rc = -5;
    }
    free(steps);
    free(buf);
    stn_snapshots_close(s);
    return rc ? fail(rc) : 0;
}
