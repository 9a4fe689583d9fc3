/*
 * stn_npyd.h -- reading a --init .npy's rows with O_DIRECT (npyd.c): the out-of-core engine's first sweep
 * and its import of inputs.  A .npy's data start at its header's end (128 bytes in most files), off any
 * O_DIRECT alignment, so each request reads the aligned bytes around a piece of a run into a slot of a
 * bounce buffer, and the piece is copied from there into its rows.  The reads go around the page cache:
 * through it, 2 GiB of heat3d's first sweep cost its kernels 3-4 s of CPU (docs/benchmarks.md section 9).
 */
#ifndef STN_NPYD_H
#define STN_NPYD_H

#include "base/stn_internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct stn_npyd stn_npyd;

/* A reader of `bytes` (stn_mem_npy_bounce, held by the run as stn_run.npy_bounce and counted by its plan
 * as stn_run.held): its bounce buffer and its own libaio context. */
int stn_npyd_open(stn_npyd **out, uint64_t bytes);
void stn_npyd_close(stn_npyd *d);

/* `path` opened again, read-only with O_DIRECT, and the alignment its reads need (offset and memory):
 * the fd, or -errno where the file system takes no O_DIRECT (the caller reads through the page cache). */
int stn_npyd_open_file(const char *path, size_t *align);

/* A run of a file: `len` bytes from `off`, rows of `rowb` bytes each, laid out `padded` apart from dst. */
typedef struct stn_npyd_run {
    char *dst;
    uint64_t off;
    size_t len, rowb, padded;
} stn_npyd_run;

/* Whether d reads files of alignment `align` (its slots hold a piece and the alignment either side). */
int stn_npyd_fits(const stn_npyd *d, size_t align);

/* Read runs[0..n) of fd (O_DIRECT, alignment `align`, named `path` in errors) into their rows, the bounce's
 * slots all in flight; the payload's bytes counted in st (bytes_read; the time is the caller's). */
int stn_npyd_read(stn_npyd *d, int fd, size_t align, const stn_npyd_run *runs, size_t n, const char *path,
                  stn_stats *st);

#endif
