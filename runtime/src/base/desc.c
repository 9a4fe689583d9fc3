/* desc.c -- a program descriptor's checks (stn_desc_check): the one the generated code gives
 * stn_program_main and stn_sim_open is whole and consistent, or the run stops with the reason. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int check_slot(const stn_program_desc *d, int f, const char *what, int slot, int n,
                      unsigned char *used) {
    if (slot < -1 || slot >= n)
        return stn_error(-EINVAL, "field %d ('%s') has %s %d, outside [-1, %d)", f, d->fields[f].name, what,
                         slot, n);
    if (slot >= 0 && used[slot]++)
        return stn_error(-EINVAL, "field %d ('%s') has %s %d, which another level already uses", f,
                         d->fields[f].name, what, slot);
    return 0;
}

/* A field that holds the level before F.prev of a three-level field F: named "F.prev.prev", one level,
 * state, of the same boundary as F, F a two-level state field. */
static int check_level2(const stn_program_desc *d, const stn_field_desc *fd) {
    int g = fd->level2_of - 1;
    const stn_field_desc *of = g >= 0 && g < d->nfields ? &d->fields[g] : NULL;
    size_t n = of && of->name ? strlen(of->name) : 0;
    if (!of || of->kind != STN_FIELD_STATE || of->levels != 2 || of->level2_of ||
        fd->kind != STN_FIELD_STATE || fd->levels != 1 || fd->boundary != of->boundary ||
        strncmp(fd->name, of->name, n) != 0 || strcmp(fd->name + n, ".prev.prev") != 0 ||
        (fd->has_level2_init && !fd->has_init))
        return stn_error(-EINVAL, "field '%s' claims to hold the level before .prev of field %d", fd->name,
                         g);
    return 0;
}

static int check_field(const stn_program_desc *d, int f, unsigned char *src_used, unsigned char *dst_used) {
    const stn_field_desc *fd = &d->fields[f];
    if (!fd->name || !*fd->name || strchr(fd->name, '=') || (strchr(fd->name, '.') && !fd->level2_of))
        return stn_error(-EINVAL, "field %d has no valid name", f);
    if (fd->level2_of && check_level2(d, fd) != 0)
        return -EINVAL;
    if (!fd->level2_of && fd->has_level2_init)
        return stn_error(-EINVAL, "field '%s' has a .prev.prev init but holds no such level", fd->name);
    for (int g = 0; g < f; g++)
        if (strcmp(d->fields[g].name, fd->name) == 0)
            return stn_error(-EINVAL, "two fields are named '%s'", fd->name);
    int state = fd->kind == STN_FIELD_STATE;
    if (!state && fd->kind != STN_FIELD_INPUT)
        return stn_error(-EINVAL, "field '%s' has kind %d", fd->name, fd->kind);
    if (state ? fd->levels < 1 || fd->levels > 2 : fd->levels != 1)
        return stn_error(-EINVAL, "field '%s' has %d levels", fd->name, fd->levels);
    if (state && fd->boundary != STN_BC_DIRICHLET && fd->boundary != STN_BC_NEUMANN &&
        fd->boundary != STN_BC_MIXED)
        return stn_error(-EINVAL, "field '%s' has boundary kind %d", fd->name, fd->boundary);
    if (state && fd->boundary == STN_BC_MIXED &&
        (!d->boundary_op || fd->neumann_faces < 0 || fd->dirichlet_faces < 0 ||
         (fd->neumann_faces | fd->dirichlet_faces) >= 64 || (fd->neumann_faces & fd->dirichlet_faces)))
        return stn_error(-EINVAL,
                         "field '%s' has a boundary per face (neumann faces %#x, dirichlet faces %#x)%s",
                         fd->name, (unsigned)fd->neumann_faces, (unsigned)fd->dirichlet_faces,
                         d->boundary_op ? "" : " but the descriptor has no boundary_op function");
    if (fd->has_prev_init && !(state && fd->levels == 2))
        return stn_error(-EINVAL, "field '%s' has a previous-level init but one level", fd->name);
    if ((fd->has_init || fd->has_prev_init) && !d->init)
        return stn_error(-EINVAL, "field '%s' has an init but the descriptor has no init function", fd->name);
    if (state && fd->dst_slot < 0)
        return stn_error(-EINVAL, "state field '%s' has no dst_slot", fd->name);
    if (!state && fd->dst_slot != -1)
        return stn_error(-EINVAL, "input field '%s' has dst_slot %d (inputs are never written)", fd->name,
                         fd->dst_slot);
    if (!(state && fd->levels == 2) && fd->prev_slot != -1)
        return stn_error(-EINVAL, "field '%s' has one level but prev_slot %d", fd->name, fd->prev_slot);
    int rc = check_slot(d, f, "src_slot", fd->src_slot, d->nsrc, src_used);
    if (rc == 0)
        rc = check_slot(d, f, "prev_slot", fd->prev_slot, d->nsrc, src_used);
    if (rc == 0)
        rc = check_slot(d, f, "dst_slot", fd->dst_slot, d->ndst, dst_used);
    return rc;
}

static int check_shape_info(const stn_program_desc *d) {
    if (d->ndim != 2 && d->ndim != 3)
        return stn_error(-EINVAL, "ndim is %d (2 or 3)", d->ndim);
    if (!d->npy_descr || !((d->elem_size == 8 && strcmp(d->npy_descr, "<f8") == 0) ||
                           (d->elem_size == 4 && strcmp(d->npy_descr, "<f4") == 0)))
        return stn_error(-EINVAL, "elem_size %d and npy_descr '%s' do not match '<f4'/4 or '<f8'/8",
                         d->elem_size, d->npy_descr ? d->npy_descr : "(null)");
    if (d->dims != 0 && !(d->dims == 1 && d->ndim == 2) && d->dims != d->ndim)
        return stn_error(-EINVAL, "dims is %d with ndim %d (a 1d grid is one row of a 2d grid)", d->dims,
                         d->ndim);
    for (int k = 0; k < 3; k++)
        if (d->halo_lo[k] < 0 || d->halo_hi[k] < 0 ||
            (k >= stn_dims(d) && (d->halo_lo[k] || d->halo_hi[k])) || d->reach_lo[k] < 0 ||
            d->reach_hi[k] < 0 || (k >= stn_dims(d) && (d->reach_lo[k] || d->reach_hi[k])))
            return stn_error(-EINVAL, "the halo of dimension %d is %d below, %d above (reach %d, %d)", k,
                             d->halo_lo[k], d->halo_hi[k], d->reach_lo[k], d->reach_hi[k]);
    if (d->nfields < 1 || d->nfields > 1024 || !d->fields)
        return stn_error(-EINVAL, "nfields is %d", d->nfields);
    if (d->nparams < 0 || (d->nparams > 0 && !d->params))
        return stn_error(-EINVAL, "nparams is %d", d->nparams);
    if (d->nsrc < 0 || d->ndst < 0 || d->nsrc > 4096 || d->ndst > 4096)
        return stn_error(-EINVAL, "nsrc %d, ndst %d", d->nsrc, d->ndst);
    if (!d->step || !d->boundary)
        return stn_error(-EINVAL, "the step or the boundary function is missing");
    return 0;
}

/* A broken descriptor is a compiler bug; say so instead of crashing later. */
int stn_desc_check(const stn_program_desc *d) {
    if (!d || !d->name)
        return stn_error(-EINVAL, "invalid program descriptor: no descriptor or no name");
    int rc = check_shape_info(d);
    for (int k = 0; rc == 0 && k < d->nparams; k++) {
        if (!d->params[k].name || !*d->params[k].name)
            rc = stn_error(-EINVAL, "param %d has no name", k);
        for (int m = 0; rc == 0 && m < k; m++)
            if (strcmp(d->params[m].name, d->params[k].name) == 0)
                rc = stn_error(-EINVAL, "two params are named '%s'", d->params[k].name);
    }
    for (int k = 0; rc == 0 && k < d->npointsets; k++)
        if (d->pointsets[k].offgrid && (!d->inject_w || d->pointsets[k].spacing >= d->nparams))
            rc =
                stn_error(-EINVAL, "points '%s' are off-grid, without the weighted inject or with spacing %d",
                          d->pointsets[k].name, d->pointsets[k].spacing);
    unsigned char *src_used = calloc((size_t)(rc ? 1 : d->nsrc + 1), 1);
    unsigned char *dst_used = calloc((size_t)(rc ? 1 : d->ndst + 1), 1);
    if (rc == 0 && (!src_used || !dst_used))
        rc = stn_error(-ENOMEM, "out of memory");
    for (int f = 0; rc == 0 && f < d->nfields; f++)
        rc = check_field(d, f, src_used, dst_used);
    free(src_used);
    free(dst_used);
    if (rc)
        return stn_error(rc, "internal error: invalid program descriptor of '%s' (a stencilc bug): %s",
                         d && d->name ? d->name : "?", stn_errmsg());
    return 0;
}
