/* gpu_wrap.c -- the GPU tier's wrapped windows (stn_gpu.h, docs/design/024-gpu-tier.md §2): a grid whose
 * state fields are all periodic along the streamed axis streams in blocks whose windows run past the grid's
 * faces, unrolled, each plane there the interior plane it wraps to. */
#include "plan/stn_gpu.h"

#include <errno.h>

int64_t stn_gpu_wrap_plane(const stn_gpu_plan *p, int64_t u) {
    if (!p->wrap)
        return u;
    const int64_t P = p->H - p->L, m = (u - p->L) % P;
    return p->L + (m < 0 ? m + P : m);
}

void stn_gpu_region(const stn_gpu_plan *p, int64_t w0, int64_t w1, int64_t t, int64_t *v0, int64_t *v1) {
    *v0 = w0 == 0 && !p->wrap ? 0 : w0 + t * p->rlo;
    *v1 = w1 == p->n && !p->wrap ? p->n : w1 - t * p->rhi;
}

int stn_gpu_wrap_refusal(const stn_program_desc *d, int axis, const int64_t size[3], int *wraps) {
    int periodic = 0, other = 0;
    const char *pname = "", *oname = "";
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind != STN_FIELD_STATE)
            continue;
        if ((fd->periodic >> axis) & 1)
            periodic++, pname = fd->name;
        else
            other++, oname = fd->name;
    }
    *wraps = 0;
    if (!periodic)
        return 0;
    const char c = "xyz"[axis];
#define REFUSE(...)                                                                                          \
    stn_error(-ENOTSUP, "--mode gpu-ooc: field '%s' is periodic along %c, the axis the blocks stream "       \
                        "along, and " __VA_ARGS__)
    if (other)
        return REFUSE("'%s' is not: it needs the whole grid in --gpu-mem (docs/design/024-gpu-tier.md)",
                      pname, c, oname);
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind == STN_FIELD_INPUT && fd->src_slot >= 0 &&
            (!(fd->read_across & 8) || ((fd->read_across >> axis) & 1)))
            return REFUSE(
                "the input '%s' is read at an offset along it (its boundary cells are its own, not the "
                "far side's): it needs the whole grid in --gpu-mem (docs/design/024-gpu-tier.md)",
                pname, c, fd->name);
    }
    if (d->scratch_bytes && d->scratch_bytes(size[0], size[1], size[2]) > 0)
        return REFUSE("the stencil has sub-steps (their cells around a block would cross the wrap): it needs "
                      "the whole grid in --gpu-mem (docs/design/024-gpu-tier.md)",
                      pname, c);
#undef REFUSE
    *wraps = 1;
    return 0;
}
