/*
 * test_kernels.h -- hand-written descriptors that stand in for generated code in the tests of
 * stn_program_main (test_program.c, test_program_errors.c): a 3d 7-point heat stencil, dirichlet and
 * neumann, and a 2d f32 wave equation with two time levels and an input coefficient field.
 */
#ifndef TEST_KERNELS_H
#define TEST_KERNELS_H

#include "test_util.h"

#include <math.h>

#pragma GCC diagnostic ignored "-Wunused-function"
/* The descriptors here are written as before the reach, series, points, inputs along an axis and
 * periodic boundaries existed: the members they leave out are zero, which the runtime reads as
 * "the halo" and "none". */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* "name=path" and similar, in rotating buffers. */
static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...) {
    static char bufs[32][700];
    static int k;
    char *b = bufs[k++ % 32];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, 700, f, ap);
    va_end(ap);
    return b;
}

/* ------------------------------------------------------------------ kernels, as generated code would be */

static int64_t idx(const stn_view *v, int64_t x, int64_t y, int64_t z) {
    return (z - v->z0) * v->sz + (y - v->y0) * v->sy + x;
}

static int in_interior(const int64_t p[3], const int64_t n[3], const int lo[3], const int hi[3]) {
    for (int d = 0; d < 3; d++)
        if (p[d] < lo[d] || p[d] >= n[d] - hi[d])
            return 0;
    return 1;
}

/* The boundary semantics of stn_boundary_fn, for any element size: dirichlet copies the
 * boundary cells from cur; neumann mirrors next's interior, x then y then z. */
static void boundary_any(int esize, const int lo[3], const int hi[3], int neumann, const stn_view *v,
                         const void *cur, void *next, const stn_box *b) {
    const int64_t n[3] = {v->nx, v->ny, v->nz};
    char *dst = next;
    const char *src = cur;
    for (int pass = 0; pass < (neumann ? 3 : 1); pass++)
        for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
            for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
                for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                    int64_t p[3] = {x, y, z}, m[3] = {x, y, z};
                    if (!neumann) {
                        if (!in_interior(p, n, lo, hi))
                            memcpy(dst + esize * idx(v, x, y, z), src + esize * idx(v, x, y, z),
                                   (size_t)esize);
                        continue;
                    }
                    int d = pass;
                    if (p[d] < lo[d])
                        m[d] = 2 * lo[d] - 1 - p[d];
                    else if (p[d] >= n[d] - hi[d])
                        m[d] = 2 * (n[d] - hi[d]) - 1 - p[d];
                    else
                        continue;
                    memcpy(dst + esize * idx(v, x, y, z), dst + esize * idx(v, m[0], m[1], m[2]),
                           (size_t)esize);
                }
}

/* --- heat3d: u' = u + alpha * (6 neighbours - 6u) */

static const int heat_lo[3] = {1, 1, 1}, heat_hi[3] = {1, 1, 1};

static double heat_initial(int64_t x, int64_t y, int64_t z) {
    return (double)((x * 7 + y * 13 + z * 3) % 17) / 17.0 + 0.001 * (double)x;
}

static inline double heat_point(const double *a, int64_t i, int64_t sy, int64_t sz, double alpha) {
    return a[i] + alpha * (a[i - 1] + a[i + 1] + a[i - sy] + a[i + sy] + a[i - sz] + a[i + sz] - 6.0 * a[i]);
}

static int heat_init_calls;

static void heat_init(int field, int level, void *data, const stn_view *v, const double *params,
                      const stn_box *b) {
    (void)params;
    CHECK(field == 0 && level == 0);
    heat_init_calls++;
    double *u = data;
    for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
            for (int64_t x = b->lo[0]; x < b->hi[0]; x++)
                u[idx(v, x, y, z)] = heat_initial(x, y, z);
}

static int heat_step(const double *params, const stn_view *v, const void *const *src, void *const *dst,
                     const stn_box *b, int64_t iy, int64_t iz) {
    (void)iy, (void)iz;
    const double *a = src[0];
    double *out = dst[0], alpha = params[0];
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t z = b->lo[2]; z < b->hi[2]; z++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
            for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
                int64_t i = idx(v, x, y, z);
                out[i] = heat_point(a, i, v->sy, v->sz, alpha);
            }
    return 0;
}

static void heat_boundary_d(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(8, heat_lo, heat_hi, 0, v, cur, next, b);
}

static void heat_boundary_n(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(8, heat_lo, heat_hi, 1, v, cur, next, b);
}

static const stn_param_desc heat_params[] = {{"alpha", 0.1}};
static const stn_field_desc heat_fields_d[] = {{"u", STN_FIELD_STATE, 1, STN_BC_DIRICHLET, 1, 0, 0, -1, 0}};
static const stn_field_desc heat_fields_n[] = {{"u", STN_FIELD_STATE, 1, STN_BC_NEUMANN, 1, 0, 0, -1, 0}};

static const stn_program_desc heat_d = {"heat3d",  "heat3d.stn",
                                        "test",    3,
                                        8,         "<f8",
                                        1,         heat_fields_d,
                                        1,         heat_params,
                                        {1, 1, 1}, {1, 1, 1},
                                        1,         1,
                                        7,         8.0,
                                        16,        1,
                                        1,         heat_init,
                                        heat_step, heat_boundary_d,
                                        NULL};
static const stn_program_desc heat_n = {"heat3dn", "heat3dn.stn",
                                        "test",    3,
                                        8,         "<f8",
                                        1,         heat_fields_n,
                                        1,         heat_params,
                                        {1, 1, 1}, {1, 1, 1},
                                        1,         1,
                                        7,         8.0,
                                        16,        1,
                                        1,         heat_init,
                                        heat_step, heat_boundary_n,
                                        NULL};

/* --- wave2d (f32): u' = 2u - u.prev + c * (4 neighbours - 4u); c is an input field */

static const int wave_lo[3] = {1, 1, 0}, wave_hi[3] = {1, 1, 0};

static float wave_initial(int field, int level, int64_t x, int64_t y) {
    if (field == 1)
        return 0.05f + 0.02f * (float)((x + 2 * y) % 5);
    return level == 0 ? (float)((x * 3 + y * 5) % 11) / 11.0f : (float)((x * 3 + y * 5 + 2) % 11) / 12.0f;
}

static inline float wave_point(const float *u, const float *up, const float *c, int64_t i, int64_t sy) {
    return 2.0f * u[i] - up[i] + c[i] * (u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] - 4.0f * u[i]);
}

static void wave_init(int field, int level, void *data, const stn_view *v, const double *params,
                      const stn_box *b) {
    (void)params;
    CHECK(b->lo[2] == 0 && b->hi[2] == 1 && v->nz == 1);
    float *a = data;
    for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
        for (int64_t x = b->lo[0]; x < b->hi[0]; x++)
            a[idx(v, x, y, 0)] = wave_initial(field, level, x, y);
}

static int wave_step(const double *params, const stn_view *v, const void *const *src, void *const *dst,
                     const stn_box *b, int64_t iy, int64_t iz) {
    (void)params, (void)iy, (void)iz;
    const float *u = src[0], *up = src[1], *c = src[2];
    float *out = dst[0];
    CHECK(b->lo[2] == 0 && b->hi[2] == 1);
#pragma omp parallel for schedule(static)
    for (int64_t y = b->lo[1]; y < b->hi[1]; y++)
        for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
            int64_t i = idx(v, x, y, 0);
            out[i] = wave_point(u, up, c, i, v->sy);
        }
    return 0;
}

static void wave_boundary_d(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(4, wave_lo, wave_hi, 0, v, cur, next, b);
}

static void wave_boundary_n(int field, const stn_view *v, const void *cur, void *next, const stn_box *b) {
    CHECK(field == 0);
    boundary_any(4, wave_lo, wave_hi, 1, v, cur, next, b);
}

static const stn_field_desc wave_fields_d[] = {{"u", STN_FIELD_STATE, 2, STN_BC_DIRICHLET, 1, 1, 0, 1, 0},
                                               {"c", STN_FIELD_INPUT, 1, 0, 1, 0, 2, -1, -1}};
static const stn_field_desc wave_fields_n[] = {{"u", STN_FIELD_STATE, 2, STN_BC_NEUMANN, 1, 1, 0, 1, 0},
                                               {"c", STN_FIELD_INPUT, 1, 0, 1, 0, 2, -1, -1}};
/* no init of the previous level: it starts as a copy of the current one */
static const stn_field_desc wave_fields_copy[] = {{"u", STN_FIELD_STATE, 2, STN_BC_NEUMANN, 1, 0, 0, 1, 0},
                                                  {"c", STN_FIELD_INPUT, 1, 0, 1, 0, 2, -1, -1}};

#define WAVE_DESC(fields, bc)                                                                                \
    {                                                                                                        \
        "wave2d", "wave2d.stn", "test", 2, 4, "<f4", 2, fields, 0, NULL, {1, 1, 0}, {1, 1, 0}, 3, 1, 5, 9.0, \
            12, 3, 2, wave_init, wave_step, bc, NULL                                                         \
    }
static const stn_program_desc wave_d = WAVE_DESC(wave_fields_d, wave_boundary_d);
static const stn_program_desc wave_n = WAVE_DESC(wave_fields_n, wave_boundary_n);
static const stn_program_desc wave_copy = WAVE_DESC(wave_fields_copy, wave_boundary_n);

/* The end of a test of stn_program_main: nothing leaked from one run to the next (no engine memory, no
 * descriptor beyond the `fds` open at the start, no temporary left); the test's exit status. */
static int t_no_leaks(int fds) {
    CHECK_EQ_INT(stn_allocated_bytes(), 0);
    CHECK_EQ_INT(t_count_fds(), fds);
    CHECK_EQ_INT(t_count_entries(".partial-"), 0);
    return t_result();
}

#endif /* TEST_KERNELS_H */
