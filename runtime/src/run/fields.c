/* fields.c -- what a program's fields add up to: the arrays a step touches, the levels an exchange
 * moves, the scratch its sub-steps allocate. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "run/stn_run.h"

uint64_t stn_total_arrays(const stn_program_desc *d) {
    uint64_t arrays = 0;
    for (int i = 0; i < d->nfields; i++)
        arrays += d->fields[i].kind == STN_FIELD_STATE ? (uint64_t)d->fields[i].levels + 1 : 1;
    return arrays;
}

uint64_t stn_state_levels(const stn_program_desc *d) {
    uint64_t levels = 0;
    for (int i = 0; i < d->nfields; i++)
        levels += d->fields[i].kind == STN_FIELD_STATE ? (uint64_t)d->fields[i].levels : 0;
    return levels;
}

uint64_t stn_kernel_scratch(const stn_program_desc *d, int64_t nx, int64_t ny, int64_t nz) {
    return d->scratch_bytes ? (uint64_t)stn_omp_max_threads() * d->scratch_bytes(nx, ny, nz) : 0;
}
