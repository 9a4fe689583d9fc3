/* fuzz_npy.c -- a libFuzzer harness for the .npy reader (issue 16): every input is a file the user
 * might give to --init (a state level, a series, a points set, an input along an axis).  The bytes
 * go into a memfd; the header is parsed (stn_npy_read_header), checked against the element types and
 * shapes the runtime asks for, the header's own shape included (stn_npy_check), and an array that
 * passes and is small is read whole (stn_npy_load, by the /proc path, as --init opens a file).  Every
 * call must return 0 or an error with a message: ASan and UBSan (the build's -fsanitize) catch the
 * rest.  Built and run by `make fuzz` and tools/reliability.py (part "libfuzzer"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LOAD_CAP ((int64_t)1 << 20) /* read arrays of at most 1 MiB */

static void must_say(int rc, const char *what) {
    if (rc && stn_errmsg()[0] == '\0') { /* an error without its message is a defect */
        fprintf(stderr, "fuzz_npy: %s returned %d with no message\n", what, rc);
        abort();
    }
    if (rc > 0) {
        fprintf(stderr, "fuzz_npy: %s returned %d, not 0 or a negative errno\n", what, rc);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.npy", 0);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    stn_npy_header h;
    int rc = stn_npy_read_header(path, fd, &h);
    must_say(rc, "stn_npy_read_header");
    if (rc == 0) {
        static const char *const descrs[] = {"<f8", "<f4", "<i8", "<i4"};
        int64_t asked[3][3] = {{7, 0, 0}, {5, 3, 0}, {4, 3, 2}}; /* shapes a run might ask for */
        for (int k = 0; k < 4; k++)
            for (int ndim = 1; ndim <= 3; ndim++) {
                rc = stn_npy_check(path, &h, descrs[k], ndim, asked[ndim - 1]);
                must_say(rc, "stn_npy_check");
                if (h.ndim < 1 || h.ndim > 3)
                    continue;
                int64_t own[3] = {0, 0, 0}, cells = 1; /* the header's own shape: the check may pass */
                for (int i = 0; i < h.ndim; i++) {
                    own[i] = h.shape[i];
                    cells = own[i] > 0 && cells <= LOAD_CAP / own[i] ? cells * own[i] : LOAD_CAP + 1;
                }
                if (ndim != h.ndim)
                    continue;
                rc = stn_npy_check(path, &h, descrs[k], ndim, own);
                must_say(rc, "stn_npy_check");
                int64_t bytes = cells * stn_npy_elem_size(descrs[k]);
                if (rc == 0 && cells <= LOAD_CAP && bytes <= LOAD_CAP) {
                    void *buf = malloc((size_t)bytes + 1);
                    stn_stats st;
                    memset(&st, 0, sizeof st);
                    rc = buf ? stn_npy_load(path, descrs[k], ndim, own, buf, &st) : 0;
                    must_say(rc, "stn_npy_load");
                    if (rc == 0 && st.bytes_read != (uint64_t)bytes) {
                        fprintf(stderr, "fuzz_npy: loaded %llu bytes of an array of %lld\n",
                                (unsigned long long)st.bytes_read, (long long)bytes);
                        abort();
                    }
                    free(buf);
                }
            }
    }
    stn_error_clear();
    return 0;
}
