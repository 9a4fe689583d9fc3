/* faultshim.c -- an LD_PRELOAD library that fails one IO call of a program on purpose (issue 16:
 * faults injected at every N along a run; tools/reliability.py's "faults" part).
 *
 *   STN_FAULT=OP:N:ERR   the N-th call (1-based) of OP fails with ERR (EIO, ENOSPC or SHORT), or with
 *                        STALL waits there to be killed: a kill aimed at that moment (a state
 *                        commit's rename, an export's write)
 *   STN_FAULT_MARK=FILE  created when the fault is reached (the number of some calls varies)
 *   STN_FAULT_COUNT=FILE at exit, write "OP COUNT" lines: how many calls of each OP the run made
 *
 * OP: io_submit, io_getevents (an event of the N-th call that returned events comes back with
 * -ERR, or half its bytes for SHORT), pwrite, write, fdatasync, fsync, rename, fallocate,
 * ftruncate.  A failed call sets errno (or returns -ERR, as libaio does) and transfers nothing;
 * SHORT makes pwrite/write transfer half of what was asked.  Calls the program makes before
 * main (the loader's) are counted like the others. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum {
    OP_SUBMIT,
    OP_GETEVENTS,
    OP_PWRITE,
    OP_WRITE,
    OP_FDATASYNC,
    OP_FSYNC,
    OP_RENAME,
    OP_FALLOCATE,
    OP_FTRUNCATE,
    NOPS
};
static const char *const names[NOPS] = {"io_submit", "io_getevents", "pwrite",    "write",    "fdatasync",
                                        "fsync",     "rename",       "fallocate", "ftruncate"};
static long counts[NOPS];
static int fault_op = -1, fault_err;
static long fault_n;
static int short_io, stall;

__attribute__((constructor)) static void setup(void) {
    const char *spec = getenv("STN_FAULT");
    if (!spec)
        return;
    char op[32], err[16];
    if (sscanf(spec, "%31[^:]:%ld:%15s", op, &fault_n, err) != 3)
        return;
    for (int i = 0; i < NOPS; i++)
        if (strcmp(op, names[i]) == 0)
            fault_op = i;
    fault_err = strcmp(err, "ENOSPC") == 0 ? ENOSPC : EIO;
    short_io = strcmp(err, "SHORT") == 0;
    stall = strcmp(err, "STALL") == 0;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("STN_FAULT_COUNT");
    if (!path)
        return;
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    for (int i = 0; i < NOPS; i++)
        fprintf(fp, "%s %ld\n", names[i], counts[i]);
    fclose(fp);
}

/* 1 when this call of op is the one to fail; a STALL waits here instead, for the kill. */
static int hit(int op) {
    long n = __atomic_add_fetch(&counts[op], 1, __ATOMIC_SEQ_CST);
    if (op != fault_op || n != fault_n)
        return 0;
    const char *mark = getenv("STN_FAULT_MARK"); /* (says the fault was reached: a run's calls vary) */
    if (mark)
        close(open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    if (stall) {
        sleep(60);
        return 0;
    }
    return 1;
}

#define REAL(ret, name, ...)                                                                                 \
    static ret (*real)(__VA_ARGS__);                                                                         \
    if (!real)                                                                                               \
        *(void **)&real = dlsym(RTLD_NEXT, name);

int io_submit(io_context_t ctx, long nr, struct iocb *ios[]) {
    REAL(int, "io_submit", io_context_t, long, struct iocb **)
    if (hit(OP_SUBMIT))
        return -fault_err;
    return real(ctx, nr, ios);
}

int io_getevents(io_context_t ctx, long min_nr, long nr, struct io_event *events, struct timespec *timeout) {
    REAL(int, "io_getevents", io_context_t, long, long, struct io_event *, struct timespec *)
    int n = real(ctx, min_nr, nr, events, timeout);
    if (n > 0 && hit(OP_GETEVENTS)) {
        if (short_io)
            events[0].res /= 2;
        else
            events[0].res = (unsigned long)(long)-fault_err;
    }
    return n;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
    REAL(ssize_t, "pwrite", int, const void *, size_t, off_t)
    if (hit(OP_PWRITE)) {
        if (short_io && n > 1)
            return real(fd, buf, n / 2, off);
        errno = fault_err;
        return -1;
    }
    return real(fd, buf, n, off);
}

ssize_t write(int fd, const void *buf, size_t n) {
    REAL(ssize_t, "write", int, const void *, size_t)
    if (fd > 2 && hit(OP_WRITE)) { /* (not the terminal: the error message itself must get out) */
        if (short_io && n > 1)
            return real(fd, buf, n / 2);
        errno = fault_err;
        return -1;
    }
    return real(fd, buf, n);
}

int fdatasync(int fd) {
    REAL(int, "fdatasync", int)
    if (hit(OP_FDATASYNC)) {
        errno = fault_err;
        return -1;
    }
    return real(fd);
}

int fsync(int fd) {
    REAL(int, "fsync", int)
    if (hit(OP_FSYNC)) {
        errno = fault_err;
        return -1;
    }
    return real(fd);
}

int rename(const char *a, const char *b) {
    REAL(int, "rename", const char *, const char *)
    if (hit(OP_RENAME)) {
        errno = fault_err;
        return -1;
    }
    return real(a, b);
}

int fallocate(int fd, int mode, off_t off, off_t len) {
    REAL(int, "fallocate", int, int, off_t, off_t)
    if (hit(OP_FALLOCATE)) {
        errno = fault_err;
        return -1;
    }
    return real(fd, mode, off, len);
}

int ftruncate(int fd, off_t len) {
    REAL(int, "ftruncate", int, off_t)
    if (hit(OP_FTRUNCATE)) {
        errno = fault_err;
        return -1;
    }
    return real(fd, len);
}
