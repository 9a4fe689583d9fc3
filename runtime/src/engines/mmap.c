/* mmap.c -- --mode mmap, the paper's baseline: the in-core engine's loop (engines/incore.c) over arrays
 * that are shared mappings of files under --dir, so the kernel's page cache decides what is in DRAM
 * and writes pages back to the device; the report gives the paging traffic of the time loop. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/stn_incore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Each array a file of its own, unlinked at once: it lives as long as the mapping, and nothing is left
 * behind. */
static void *map_buffer(const stn_run *r, int f, int b, size_t bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.%d.mmap-XXXXXX", r->o->dir, r->d->name, r->d->fields[f].name, b);
    int fd = mkstemp(path);
    if (fd < 0) {
        stn_error(stn_neg_errno(errno), "--mode mmap: cannot create a file in '%s': %s", r->o->dir,
                  strerror(errno));
        return NULL;
    }
    unlink(path);
    void *p = MAP_FAILED;
    int err = 0;
    if (ftruncate(fd, (off_t)bytes) != 0)
        err = errno;
    else if ((p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        err = errno;
    close(fd);
    if (err) {
        char hb[32];
        stn_error(stn_neg_errno(err), "--mode mmap: cannot map %s of '%s': %s",
                  stn_fmt_bytes(hb, sizeof hb, bytes), r->o->dir, strerror(err));
        return NULL;
    }
    return p;
}

static void unmap_buffer(void *p, size_t bytes) { munmap(p, bytes); }

/* Bytes this process made the storage layer read and write (page cache misses, writeback): the flash
 * traffic of --mode mmap, which the kernel moves without asking us. */
static void proc_io(uint64_t *rd, uint64_t *wr) {
    FILE *fp = fopen("/proc/self/io", "r");
    char line[128];
    unsigned long long v;
    while (fp && fgets(line, sizeof line, fp)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            *rd = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            *wr = v;
    }
    if (fp)
        fclose(fp);
}

static const stn_incore_kind mapped = {"mmap", map_buffer, unmap_buffer, proc_io};

static int mmap_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state) {
    (void)plan, (void)program;
    return stn_incore_open(r, res, &mapped, state);
}

const stn_engine_ops stn_mmap_engine = STN_INCORE_OPS("mmap", 0, mmap_open);
