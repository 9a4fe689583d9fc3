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

/* The arrays' files (io/mapfile.c): their space checked first, then each one a file of its own, its
 * blocks reserved and unlinked at once (it lives as long as the mapping; nothing is left behind). */
static int map_space(const stn_run *r, size_t bytes, uint64_t count) {
    return stn_map_space(r->o->dir, bytes, count);
}

static int map_buffer(const stn_run *r, int f, int b, size_t bytes, void **out) {
    return stn_map_file(r->o->dir, r->d->name, r->d->fields[f].name, b, bytes, out);
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

static const stn_incore_kind mapped = {"mmap", map_space, map_buffer, unmap_buffer, proc_io};

static int mmap_open(const stn_run *r, stn_result *res, stn_ooc_result *plan, int program, void **state) {
    (void)plan, (void)program;
    return stn_incore_open(r, res, &mapped, state);
}

const stn_engine_ops stn_mmap_engine = STN_INCORE_OPS("mmap", 0, mmap_open);
