/*
 * stn_incore.h -- the in-core engine (engines/incore.c) for the engines that run its loop over memory
 * of their own: --mode mmap (engines/mmap.c), the paper's baseline of mapped files.  Private to those.
 */
#ifndef STN_INCORE_H
#define STN_INCORE_H

#include "engines/stn_engine.h"

/* Where the engine's arrays live.  DRAM (paging NULL) is the in-core engine proper: it warns when its
 * buffers exceed the budget, tiles time in the cache, and MPI ranks split it.  Memory the kernel pages
 * (paging set: mapped files) runs the plain loop, its paging traffic measured, and is not split. */
typedef struct stn_incore_kind {
    const char *mode; /* its --mode */
    /* Before any array: room for `count` arrays of `bytes` made sure of (NULL: nothing to do). */
    int (*reserve)(const stn_run *r, size_t bytes, uint64_t count);
    /* One array into *out: a failure's -errno with its message, or 0 with *out NULL for out of memory. */
    int (*alloc)(const stn_run *r, int field, int buffer, size_t bytes, void **out);
    void (*release)(void *p, size_t bytes);
    void (*paging)(uint64_t *read, uint64_t *written); /* the process' storage traffic so far, or NULL */
} stn_incore_kind;

/* The engine on memory of `kind`: the buffers, each level's initial values (--init file, init, zero;
 * mirrored), the tiles. */
int stn_incore_open(const stn_run *r, stn_result *res, const stn_incore_kind *kind, void **state);
/* The rest of its operations (stn_engine_ops), whatever its memory. */
int64_t stn_incore_steps_done(const void *state);
int stn_incore_advance(void *state, int64_t t0, int64_t steps);
int stn_incore_box(void *state, const stn_box_io *b);
int stn_incore_account(void *state, stn_result *out);
int stn_incore_finish(void *state);
void stn_incore_close(void *state, int keep);

/* For an engine that advances the levels elsewhere (engines/gpu.c) and uses this one for the rest (open,
 * box, --out): slot[s] the array of the kernel's src[] slot s now (s < nsrc), spare[s] a spare array of the
 * grid's size for a state field's current-level slot (its next level's buffer; NULL for the others).
 * rebind takes them back after such an advance (the same arrays, in any order within a field). */
void stn_incore_slots(void *state, void **slot, void **spare);
/* Such an engine's steps: advance runs `loop` (ctx, t0, steps) where it would run its own time loop, under
 * MPI once a chunk of steps, the ghosts exchanged between (the chunk: as deep as the ghosts). */
typedef int (*stn_incore_loop)(void *ctx, int64_t t0, int64_t steps);
void stn_incore_set_loop(void *state, stn_incore_loop loop, void *ctx);
/* The run its arrays are laid out for: under MPI the rank's part (stn_part_run), else the given one. */
const stn_run *stn_incore_run(const void *state);
void stn_incore_rebind(void *state, void *const *slot, void *const *spare);

/* The table of an engine on the in-core loop: its --mode name, whether MPI ranks split it, its open. */
/* MPI: the rank's part (NULL: none), and a 1d grid's fold (stn_engine_ops.part). */
const struct stn_part *stn_incore_part(const void *state, const stn_fold **fold);
#define STN_INCORE_OPS(mode, split, open_fn)                                                                 \
    {                                                                                                        \
        mode, {.splits = split}, open_fn, stn_incore_steps_done, stn_incore_advance, stn_incore_box,         \
            stn_incore_account, stn_incore_finish, stn_incore_close, NULL, stn_incore_part, NULL             \
    }

#endif /* STN_INCORE_H */
