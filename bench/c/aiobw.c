/* aiobw.c -- the device's O_DIRECT bandwidth through libaio, as the runtime drives it.
 *
 *     aiobw FILE BYTES REQUEST_BYTES QD[,QD...]
 *
 * For each queue depth: write BYTES to FILE sequentially in REQUEST_BYTES requests, keeping QD
 * of them in flight, then fdatasync (counted); then read it all back the same way.  The file
 * is opened with O_DIRECT, so the page cache plays no part; it is created (or truncated) and
 * removed at the end.  Prints one JSON line per (direction, depth).  Exits 77 when the file
 * system refuses O_DIRECT (tmpfs, some overlays), 1 on any other failure, with the cause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int pass(int fd, const char *path, long long bytes, long req, int qd, int write) {
    io_context_t ctx = 0;
    int rc = io_setup(qd, &ctx);
    if (rc < 0) {
        fprintf(stderr, "aiobw: io_setup(%d): %s\n", qd, strerror(-rc));
        return 1;
    }
    char *buf = NULL;
    if (posix_memalign((void **)&buf, 4096, (size_t)req * (size_t)qd)) {
        fprintf(stderr, "aiobw: cannot allocate %d x %ld bytes\n", qd, req);
        return 1;
    }
    memset(buf, 0x5a, (size_t)req * (size_t)qd);
    struct iocb *cbs = calloc((size_t)qd, sizeof *cbs);
    struct iocb **ptrs = calloc((size_t)qd, sizeof *ptrs);
    struct io_event *ev = calloc((size_t)qd, sizeof *ev);
    long long next = 0, done = 0;
    int slot_free[1024], nfree = 0;
    for (int i = qd - 1; i >= 0; i--)
        slot_free[nfree++] = i;
    double t0 = now();
    while (done < bytes) {
        int n = 0;
        while (next < bytes && nfree > 0) {
            int s = slot_free[--nfree];
            long len = bytes - next < req ? (long)(bytes - next) : req;
            if (write)
                io_prep_pwrite(&cbs[s], fd, buf + (size_t)s * (size_t)req, (size_t)len, next);
            else
                io_prep_pread(&cbs[s], fd, buf + (size_t)s * (size_t)req, (size_t)len, next);
            cbs[s].data = (void *)(long)s;
            ptrs[n++] = &cbs[s];
            next += len;
        }
        if (n > 0) {
            rc = io_submit(ctx, n, ptrs);
            if (rc != n) {
                fprintf(stderr, "aiobw: io_submit of %d requests on '%s': %s\n", n, path,
                        rc < 0 ? strerror(-rc) : "short submit");
                return 1;
            }
        }
        rc = io_getevents(ctx, 1, qd, ev, NULL);
        if (rc < 0) {
            fprintf(stderr, "aiobw: io_getevents: %s\n", strerror(-rc));
            return 1;
        }
        for (int i = 0; i < rc; i++) {
            long res = (long)ev[i].res;
            struct iocb *cb = ev[i].obj;
            if (res < 0 || (unsigned long)res != cb->u.c.nbytes) {
                fprintf(stderr, "aiobw: a %s of %lu bytes at %lld on '%s' returned %ld (%s)\n", write ? "write" : "read",
                        cb->u.c.nbytes, cb->u.c.offset, path, res, res < 0 ? strerror((int)-res) : "short");
                return 1;
            }
            done += res;
            slot_free[nfree++] = (int)(long)cb->data;
        }
    }
    if (write && fdatasync(fd) != 0) {
        fprintf(stderr, "aiobw: fdatasync '%s': %s\n", path, strerror(errno));
        return 1;
    }
    double t = now() - t0;
    printf("{\"direction\": \"%s\", \"qd\": %d, \"request_bytes\": %ld, \"bytes\": %lld, \"seconds\": %.6f, "
           "\"bytes_per_second\": %.6e}\n",
           write ? "write" : "read", qd, req, bytes, t, (double)bytes / t);
    fflush(stdout);
    io_destroy(ctx);
    free(buf);
    free(cbs);
    free(ptrs);
    free(ev);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: aiobw FILE BYTES REQUEST_BYTES QD[,QD...]\n");
        return 2;
    }
    const char *path = argv[1];
    long long bytes = atoll(argv[2]);
    long req = atol(argv[3]);
    if (bytes <= 0 || req <= 0 || req % 4096 || bytes % req) {
        fprintf(stderr, "aiobw: BYTES must be a multiple of REQUEST_BYTES, itself a multiple of 4096\n");
        return 2;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0600);
    if (fd < 0) {
        int e = errno;
        fprintf(stderr, "aiobw: cannot open '%s' with O_DIRECT: %s\n", path, strerror(e));
        return e == EINVAL ? 77 : 1;
    }
    int rc = 0;
    char *list = strdup(argv[4]);
    for (char *tok = strtok(list, ","); rc == 0 && tok; tok = strtok(NULL, ",")) {
        int qd = atoi(tok);
        if (qd < 1 || qd > 1024) {
            fprintf(stderr, "aiobw: queue depth %s is not in 1..1024\n", tok);
            rc = 2;
            break;
        }
        rc = pass(fd, path, bytes, req, qd, 1);
        if (rc == 0)
            rc = pass(fd, path, bytes, req, qd, 0);
    }
    free(list);
    close(fd);
    unlink(path);
    return rc;
}
