/* mem.c -- the memory policy: every share of the machine's DRAM and of a run's budget, named once
 * (stn_internal.h lists them; docs/design/020).  The budget (--mem, else the DRAM figure less the
 * reserve, shared by the ranks on one machine) is what an out-of-core plan allocates in full; the
 * measurements at startup and the MPI buffers beside the plan take the shares below, so that none of
 * them alone can push a run past it. */
#include "base/stn_internal.h"

#define MIB ((uint64_t)1 << 20)

uint64_t stn_mem_reserve(uint64_t dram) { return dram / STN_MEM_RESERVE_DEN; }

uint64_t stn_mem_per_rank(uint64_t budget, int ranks) {
    return ranks > 1 ? budget / (uint64_t)ranks : budget;
}

uint64_t stn_mem_rate_grid(uint64_t budget) { return budget / 4 < 16 * MIB ? budget / 4 : 16 * MIB; }

uint64_t stn_mem_copy_buffers(uint64_t budget) { return budget / 8; }

uint64_t stn_mem_ghosts(uint64_t budget) { return budget / 8; }

uint64_t stn_mem_block_rate(uint64_t budget, uint64_t llc) {
    uint64_t cap = 4 * llc > STN_RATE_MAX_BYTES ? 4 * llc : STN_RATE_MAX_BYTES;
    return budget < cap ? budget : cap;
}

uint64_t stn_mem_npy_bounce(uint64_t budget) {
    const uint64_t align = 4096, lo = 16 << 10, hi = MIB;
    if (budget < 4 * MIB)
        return 0;
    uint64_t slot = budget / 512;
    slot = slot < lo ? lo : slot > hi ? hi : slot;
    return STN_NPY_BOUNCE_SLOTS * (slot / align * align);
}

uint64_t stn_mem_snap_piece(uint64_t budget) {
    uint64_t p = budget / STN_MEM_SNAP_DEN;
    return p > STN_SNAP_PIECE_MAX ? STN_SNAP_PIECE_MAX : p < STN_SNAP_PIECE_MIN ? STN_SNAP_PIECE_MIN : p;
}

uint64_t stn_mem_share_load(uint64_t budget) { return budget / 16 < 8 * MIB ? budget / 16 : 8 * MIB; }
