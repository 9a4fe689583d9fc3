/* stn_program_main end to end, in one process, many times: hand-written descriptors stand in
 * for generated code (a 3d 7-point heat stencil, dirichlet and neumann; a 2d f32 wave
 * equation with two time levels and an input coefficient field), and every result is
 * compared bit for bit with a naive reference computed here. */
#include "test_util.h"

#include <math.h>

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

/* ------------------------------------------------------------------ the naive reference */

static int64_t mirror1(int64_t p, int64_t n, int lo, int hi) {
    return p < lo ? 2 * lo - 1 - p : p >= n - hi ? 2 * (n - hi) - 1 - p : p;
}

/* Neumann: every boundary cell takes the value of its mirror image (always an interior cell). */
static void ref_mirror(void *data, int esize, const int64_t n[3], const int lo[3], const int hi[3]) {
    char *a = data;
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                int64_t mx = mirror1(x, n[0], lo[0], hi[0]), my = mirror1(y, n[1], lo[1], hi[1]),
                        mz = mirror1(z, n[2], lo[2], hi[2]);
                if (mx != x || my != y || mz != z)
                    memcpy(a + esize * ((z * n[1] + y) * n[0] + x),
                           a + esize * ((mz * n[1] + my) * n[0] + mx), (size_t)esize);
            }
}

/* Dirichlet: the boundary cells of dst are those of src. */
static void ref_copy_boundary(void *dst, const void *src, int esize, const int64_t n[3], const int lo[3],
                              const int hi[3]) {
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                int64_t p[3] = {x, y, z}, i = esize * ((z * n[1] + y) * n[0] + x);
                if (!in_interior(p, n, lo, hi))
                    memcpy((char *)dst + i, (const char *)src + i, (size_t)esize);
            }
}

/* heat3d after `steps` steps from `init` (NULL: the init expression). */
static double *heat_ref(const int64_t n[3], int steps, double alpha, int neumann, const double *init) {
    size_t cells = (size_t)(n[0] * n[1] * n[2]);
    double *a = malloc(cells * 8), *b = malloc(cells * 8);
    for (int64_t z = 0; z < n[2]; z++)
        for (int64_t y = 0; y < n[1]; y++)
            for (int64_t x = 0; x < n[0]; x++) {
                int64_t i = (z * n[1] + y) * n[0] + x;
                a[i] = init ? init[i] : heat_initial(x, y, z);
            }
    if (neumann)
        ref_mirror(a, 8, n, heat_lo, heat_hi);
    memcpy(b, a, cells * 8);
    for (int t = 0; t < steps; t++) {
        for (int64_t z = 1; z < n[2] - 1; z++)
            for (int64_t y = 1; y < n[1] - 1; y++)
                for (int64_t x = 1; x < n[0] - 1; x++) {
                    int64_t i = (z * n[1] + y) * n[0] + x;
                    b[i] = heat_point(a, i, n[0], n[0] * n[1], alpha);
                }
        if (neumann)
            ref_mirror(b, 8, n, heat_lo, heat_hi);
        else
            ref_copy_boundary(b, a, 8, n, heat_lo, heat_hi);
        double *t2 = a;
        a = b;
        b = t2;
    }
    free(b);
    return a;
}

/* wave2d from u0, up0 (NULL: copy of u0) and c; returns u, *prev_out = u.prev. */
static float *wave_ref(const int64_t n[3], int steps, int neumann, const float *u0, const float *up0,
                       const float *c, float **prev_out) {
    size_t cells = (size_t)(n[0] * n[1]), bytes = cells * 4;
    float *prev = malloc(bytes), *cur = malloc(bytes), *next = malloc(bytes);
    memcpy(cur, u0, bytes);
    if (up0)
        memcpy(prev, up0, bytes);
    if (neumann) {
        ref_mirror(cur, 4, n, wave_lo, wave_hi);
        if (up0)
            ref_mirror(prev, 4, n, wave_lo, wave_hi);
    }
    if (!up0)
        memcpy(prev, cur, bytes);
    memcpy(next, cur, bytes);
    for (int t = 0; t < steps; t++) {
        for (int64_t y = 1; y < n[1] - 1; y++)
            for (int64_t x = 1; x < n[0] - 1; x++)
                next[y * n[0] + x] = wave_point(cur, prev, c, y * n[0] + x, n[0]);
        if (neumann)
            ref_mirror(next, 4, n, wave_lo, wave_hi);
        else
            ref_copy_boundary(next, cur, 4, n, wave_lo, wave_hi);
        float *t2 = prev;
        prev = cur;
        cur = next;
        next = t2;
    }
    free(next);
    *prev_out = prev;
    return cur;
}

static float *wave_field(const int64_t n[3], int field, int level) {
    float *a = malloc((size_t)(n[0] * n[1]) * 4);
    for (int64_t y = 0; y < n[1]; y++)
        for (int64_t x = 0; x < n[0]; x++)
            a[y * n[0] + x] = wave_initial(field, level, x, y);
    return a;
}

/* ------------------------------------------------------------------ files and reports */

/* The data of an output file (read raw: the header must end at 4096); NULL on any mismatch. */
static void *load_out(const char *path, size_t nbytes) {
    size_t n = 0;
    char *raw = t_read_file(path, &n);
    if (!raw || n != STN_NPY_DATA_OFFSET + nbytes) {
        fprintf(stderr, "%s: %zu bytes, expected %zu\n", path, n, (size_t)STN_NPY_DATA_OFFSET + nbytes);
        free(raw);
        t_failures++;
        return NULL;
    }
    void *data = malloc(nbytes);
    memcpy(data, raw + STN_NPY_DATA_OFFSET, nbytes);
    free(raw);
    return data;
}

static void check_same(const char *what, const void *got, const void *want, size_t nbytes) {
    if (!got || memcmp(got, want, nbytes) != 0) {
        fprintf(stderr, "%s: the output differs from the reference\n", what);
        t_failures++;
    }
}

/* A value of a key that appears once in the report. */
static double json_number(const char *json, const char *key) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = json ? strstr(json, pat) : NULL;
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static const char *check_report_py =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "need = {'mode', 'schedule', 'tuner', 'size', 'steps', 'params', 'bytes_read', 'bytes_written',\n"
    "        'predicted_bytes_read', 'predicted_bytes_written', 'seconds', 'peak_rss_bytes',\n"
    "        'mem_budget_bytes', 'engine_bytes', 'cells_per_second', 'hardware', 'warnings', 'stencil',\n"
    "        'source', 'compiler_version', 'dtype', 'halo', 'kr', 'kw', 'stencil_params'}\n"
    "assert not need - set(d), need - set(d)\n"
    "assert set(d['seconds']) == {'total', 'read', 'write', 'copy', 'compute', 'wait', 'init'}, "
    "d['seconds']\n"
    "p = d['params']\n"
    "assert (p['by'], p['bz'], p['bt']) == (None, None, None), p\n"
    "assert p['iy'] >= 1 and p['iz'] >= 1 and d['iblock_source'].startswith('eq. 1a'), p\n"
    "hw = d['hardware']\n"
    "for k in ('cores', 'sockets', 'numa_nodes', 'l2_bytes', 'dram_bytes', 'reserve_bytes'):\n"
    "    assert hw[k]['value'] > 0 and hw[k]['source'], (k, hw.get(k))\n"
    "assert hw['dram_bytes']['value'] <= hw['mem_available_bytes']['value'], hw\n"
    "assert d['mem_budget_bytes'] == hw['dram_bytes']['value'] - hw['reserve_bytes']['value'] or "
    "d['mem_budget_source'] == '--mem'\n"
    "assert d['mode'] == 'incore' and d['schedule'] is None and d['tuner'] is None\n"
    "assert d['bytes_read'] == d['predicted_bytes_read'] and d['bytes_written'] == "
    "d['predicted_bytes_written']\n"
    "assert d['hardware']['threads']['source'] == 'omp_get_max_threads' and "
    "d['hardware']['threads']['value'] >= 1\n"
    "assert d['size'] == [int(s) for s in sys.argv[2].split(',')], d['size']\n"
    "assert d['steps'] == int(sys.argv[3]) and isinstance(d['warnings'], list)\n"
    "assert d['peak_rss_bytes'] > 0 and d['mem_budget_bytes'] > 0 and d['engine_bytes'] > 0\n"
    "assert d['seconds']['wait'] == 0 and d['seconds']['total'] >= d['seconds']['compute'] >= 0\n"
    "assert all(isinstance(v, float) or isinstance(v, int) for v in d['stencil_params'].values())\n"
    "for k, v in zip(sys.argv[4::2], sys.argv[5::2]):\n"
    "    got = d['out_files'][k]\n"
    "    assert got == v, (got, v)\n"
    "import os\n"
    "schema = os.environ.get('STN_REPORT_SCHEMA')\n"
    "if schema:\n"
    "    try:\n"
    "        import jsonschema\n"
    "    except ImportError:\n"
    "        sys.stderr.write('%s: not checked against %s: no jsonschema module\\n' % (sys.argv[1], "
    "schema))\n"
    "    else:\n"
    "        jsonschema.Draft202012Validator(json.load(open(schema))).validate(d)\n";

static int have_python = -1;

/* Parse the report with Python's json module (when there is one) and check keys and values, and
 * against docs/report.schema.json (STN_REPORT_SCHEMA, set by CTest) where jsonschema is installed. */
static void python_check(const char *report, const char *size, const char *steps, const char *out_key,
                         const char *out_path) {
    if (have_python < 0) {
        have_python = system("python3 -c 'import json' >/dev/null 2>&1") == 0;
        if (have_python)
            CHECK(t_write_file(t_path("check_report.py"), check_report_py, strlen(check_report_py)) == 0);
    }
    if (!have_python)
        return;
    /* paths are passed through the environment: they may hold quotes */
    setenv("STN_REPORT", report, 1);
    setenv("STN_OUT_PATH", out_path ? out_path : "", 1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "python3 '%s' \"$STN_REPORT\" %s %s %s %s", t_path("check_report.py"), size,
             steps, out_key ? out_key : "", out_key ? "\"$STN_OUT_PATH\"" : "");
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "python check of %s failed (%d)\n", report, rc);
        t_failures++;
    }
}

/* ------------------------------------------------------------------ heat3d runs */

static void test_heat_dirichlet(void) {
    const int64_t n[3] = {12, 10, 8};
    const size_t bytes = 12 * 10 * 8 * 8;
    const char *out1 = t_path("h1.npy"), *out2 = t_path("h2.npy"), *rep = t_path("h1.json");

    heat_init_calls = 0;
    t_run_result *r = t_run(&heat_d, "--size", "12,10,8", "--steps", "5", "--out", fmt("u=%s", out1),
                            "--report", rep, "--quiet", NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strcmp(r->err, "") == 0);
    CHECK_EQ_INT(heat_init_calls, 1);
    double *want = heat_ref(n, 5, 0.1, 0, NULL);
    double *got = load_out(out1, bytes);
    check_same("heat dirichlet, 5 steps", got, want, bytes);
    free(got);

    char *json = t_read_file(rep, NULL);
    CHECK(json != NULL);
    CHECK_HAS(json, "\"mode\": \"incore\"");
    CHECK_HAS(json, "\"schedule\": null");
    CHECK_HAS(json, "\"tuner\": null");
    CHECK_HAS(json, "\"size\": [12, 10, 8]");
    CHECK_HAS(json, "\"stencil\": \"heat3d\"");
    CHECK_HAS(json, "\"dtype\": \"f64\"");
    CHECK_HAS(json, "\"alpha\": 0.10000000000000001");
    CHECK_HAS(json, "\"source\": \"omp_get_max_threads\"");
    CHECK_EQ_INT(json_number(json, "steps"), 5);
    CHECK_EQ_INT(json_number(json, "bytes_read"), 0);
    CHECK_EQ_INT(json_number(json, "predicted_bytes_read"), 0);
    CHECK_EQ_INT(json_number(json, "bytes_written"), bytes);
    CHECK_EQ_INT(json_number(json, "predicted_bytes_written"), bytes);
    CHECK_EQ_INT(json_number(json, "engine_bytes"), 2 * bytes);
    CHECK(json_number(json, "cells_per_second") > 0);
    CHECK(json_number(json, "peak_rss_bytes") > 0);
    CHECK(json_number(json, "mem_budget_bytes") > 0);
    CHECK(json_number(json, "total") >= json_number(json, "compute"));
    free(json);
    python_check(rep, "12,10,8", "5", "u", out1);

    /* continue from the output for 3 more steps: the same as 8 steps at once;
     * --opt=value, --threads and an explicit --param, with a report again */
    heat_init_calls = 0;
    r = t_run(&heat_d, "--size=12,10,8", "--steps=3", fmt("--init=u=%s", out1), "--out", fmt("u=%s", out2),
              "--param", "alpha=0.1", "--threads", "1", "--report", rep, "--mem", "64M", NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strncmp(r->err, "heat3d: done: 3 steps of 12x10x8 in ", 36) == 0); /* the summary line alone */
    CHECK_EQ_INT(heat_init_calls, 0);                                        /* the file replaces the init */
    free(want);
    want = heat_ref(n, 8, 0.1, 0, NULL);
    got = load_out(out2, bytes);
    check_same("heat dirichlet, 5 + 3 steps", got, want, bytes);
    free(got);
    json = t_read_file(rep, NULL);
    CHECK_EQ_INT(json_number(json, "bytes_read"), bytes);
    CHECK_EQ_INT(json_number(json, "predicted_bytes_read"), bytes);
    CHECK_EQ_INT(json_number(json, "bytes_written"), bytes);
    CHECK_EQ_INT(json_number(json, "mem_budget_bytes"), 64 << 20);
    CHECK_HAS(json, "\"mem_budget_source\": \"--mem\"");
    CHECK_HAS(json, "\"value\": 1,");
    free(json);
    python_check(rep, "12,10,8", "3", "u", out2);

    /* another alpha, two threads, an output name that needs JSON escaping */
    const char *odd = t_path("we\"ird\\name\t.npy");
    r = t_run(&heat_d, "--size", "12,10,8", "--steps", "4", "--param=alpha=0.05", "--out", fmt("u=%s", odd),
              "--threads", "2", "--report", rep, "--quiet", NULL);
    CHECK_EQ_INT(r->status, 0);
    free(want);
    want = heat_ref(n, 4, 0.05, 0, NULL);
    got = load_out(odd, bytes);
    check_same("heat dirichlet, alpha 0.05", got, want, bytes);
    free(got);
    json = t_read_file(rep, NULL);
    CHECK_HAS(json, "\"alpha\": 0.050000000000000003");
    CHECK_HAS(json, "we\\\"ird\\\\name\\t.npy");
    free(json);
    python_check(rep, "12,10,8", "4", "u", odd);
    free(want);
}

static void test_heat_neumann(void) {
    const int64_t n[3] = {9, 7, 6};
    const size_t cells = 9 * 7 * 6, bytes = cells * 8;
    const char *out = t_path("hn.npy"), *in = t_path("hn_in.npy");

    t_run_result *r = t_run(&heat_n, "--size", "9,7,6", "--steps", "4", "--out", fmt("u=%s", out), NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK(strncmp(r->err, "heat3dn: done: 4 steps of 9x7x6 in ", 35) == 0); /* no progress, a summary */
    double *want = heat_ref(n, 4, 0.1, 1, NULL);
    double *got = load_out(out, bytes);
    check_same("heat neumann, 4 steps", got, want, bytes);
    free(got);
    free(want);

    /* an input whose boundary is not mirrored: it is mirrored before the first step */
    double *init = malloc(bytes);
    for (size_t i = 0; i < cells; i++)
        init[i] = sin((double)i) * 3.0;
    make_npy(in, 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (6, 7, 9), }", init, bytes);
    r = t_run(&heat_n, "--size", "9,7,6", "--steps", "3", "--init", fmt("u=%s", in), "--out",
              fmt("u=%s", out), NULL);
    CHECK_EQ_INT(r->status, 0);
    want = heat_ref(n, 3, 0.1, 1, init);
    got = load_out(out, bytes);
    check_same("heat neumann from a file", got, want, bytes);
    free(got);
    free(want);

    /* zero steps: the output is the (mirrored) initial state */
    r = t_run(&heat_n, "--size", "9,7,6", "--steps", "0", "--init", fmt("u=%s", in), "--out",
              fmt("u=%s", out), "--report", t_path("hn.json"), NULL);
    CHECK_EQ_INT(r->status, 0);
    want = heat_ref(n, 0, 0.1, 1, init);
    got = load_out(out, bytes);
    check_same("heat neumann, 0 steps", got, want, bytes);
    free(got);
    free(want);
    free(init);
    char *json = t_read_file(t_path("hn.json"), NULL);
    CHECK_EQ_INT(json_number(json, "cells_per_second"), 0);
    CHECK_EQ_INT(json_number(json, "steps"), 0);
    free(json);

    /* dirichlet, zero steps: the init expression itself */
    r = t_run(&heat_d, "--size", "5,4,3", "--steps", "0", "--out", fmt("u=%s", out), NULL);
    CHECK_EQ_INT(r->status, 0);
    const int64_t m[3] = {5, 4, 3};
    want = heat_ref(m, 0, 0.1, 0, NULL);
    got = load_out(out, 5 * 4 * 3 * 8);
    check_same("heat dirichlet, 0 steps", got, want, 5 * 4 * 3 * 8);
    free(got);
    free(want);

    /* the smallest grid: one interior cell per dimension */
    r = t_run(&heat_n, "--size", "3,3,3", "--steps", "2", "--out", fmt("u=%s", out), NULL);
    CHECK_EQ_INT(r->status, 0);
    const int64_t s[3] = {3, 3, 3};
    want = heat_ref(s, 2, 0.1, 1, NULL);
    got = load_out(out, 27 * 8);
    check_same("heat neumann 3x3x3", got, want, 27 * 8);
    free(got);
    free(want);
}

/* ------------------------------------------------------------------ wave2d runs */

static void wave_case(const char *what, const stn_program_desc *d, int steps, const float *u0,
                      const float *up0, const float *c, const char *const *extra) {
    const int64_t n[3] = {11, 9, 1};
    const size_t bytes = 11 * 9 * 4;
    const char *ou = t_path("w_u.npy"), *op = t_path("w_up.npy"), *oc = t_path("w_c.npy"),
               *rep = t_path("w.json");
    char steps_text[16];
    snprintf(steps_text, sizeof steps_text, "%d", steps);
    t_run_result *r = t_run(d, "--size", "11,9", "--steps", steps_text, "--out", fmt("u=%s", ou), "--out",
                            fmt("u.prev=%s", op), "--out", fmt("c=%s", oc), "--report", rep, extra[0],
                            extra[1], extra[2], extra[3], extra[4], extra[5], NULL);
    if (r->status != 0)
        fprintf(stderr, "%s: %s", what, r->err);
    CHECK_EQ_INT(r->status, 0);
    float *want_prev,
        *want = wave_ref(n, steps, d->fields[0].boundary == STN_BC_NEUMANN, u0, up0, c, &want_prev);
    void *got_u = load_out(ou, bytes), *got_p = load_out(op, bytes), *got_c = load_out(oc, bytes);
    check_same(fmt("%s: u", what), got_u, want, bytes);
    check_same(fmt("%s: u.prev", what), got_p, want_prev, bytes);
    check_same(fmt("%s: c", what), got_c, c, bytes);
    free(got_u);
    free(got_p);
    free(got_c);
    free(want);
    free(want_prev);
    char *json = t_read_file(rep, NULL);
    int nin = 0;
    for (int k = 0; k < 6 && extra[k]; k++)
        nin += strcmp(extra[k], "--init") == 0;
    CHECK_EQ_INT(json_number(json, "bytes_written"), 3 * bytes);
    CHECK_EQ_INT(json_number(json, "predicted_bytes_written"), 3 * bytes);
    CHECK_EQ_INT(json_number(json, "bytes_read"), nin * bytes);
    CHECK_EQ_INT(json_number(json, "predicted_bytes_read"), nin * bytes);
    CHECK_EQ_INT(json_number(json, "engine_bytes"), 4 * bytes); /* 3 levels of u, 1 of c */
    CHECK_HAS(json, "\"dtype\": \"f32\"");
    CHECK_HAS(json, "\"size\": [11, 9]");
    CHECK_HAS(json, "\"stencil_params\": {}");
    free(json);
}

static void test_wave(void) {
    const int64_t n[3] = {11, 9, 1};
    const size_t bytes = 11 * 9 * 4;
    float *u0 = wave_field(n, 0, 0), *up0 = wave_field(n, 0, 1), *c = wave_field(n, 1, 0);
    const char *none[6] = {NULL};
    wave_case("wave dirichlet", &wave_d, 6, u0, up0, c, none);
    wave_case("wave neumann", &wave_n, 5, u0, up0, c, none);
    wave_case("wave, prev = copy", &wave_copy, 5, u0, NULL, c, none);

    /* continue from files: all three given */
    float *fu = load_out(t_path("w_u.npy"), bytes), *fp = load_out(t_path("w_up.npy"), bytes);
    float *fc = malloc(bytes);
    for (size_t i = 0; i < 11 * 9; i++)
        fc[i] = c[i] * 0.5f;
    const char *hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (9, 11), }";
    make_npy(t_path("in_u.npy"), 1, hdr, fu, bytes);
    make_npy(t_path("in_up.npy"), 3, hdr, fp, bytes);
    make_npy(t_path("in_c.npy"), 2, hdr, fc, bytes);
    make_npy(t_path("in_u0.npy"), 1, hdr, u0, bytes);
    const char *all[6] = {"--init", fmt("u=%s", t_path("in_u.npy")),
                          "--init", fmt("u.prev=%s", t_path("in_up.npy")),
                          "--init", fmt("c=%s", t_path("in_c.npy"))};
    wave_case("wave from files", &wave_copy, 4, fu, fp, fc, all);
    /* only the previous level from a file; the current one from the init */
    const char *prev_only[6] = {"--init", fmt("u.prev=%s", t_path("in_up.npy")), NULL};
    wave_case("wave, prev from a file", &wave_copy, 3, u0, fp, c, prev_only);
    /* dirichlet with a previous level whose boundary differs */
    wave_case("wave dirichlet from files", &wave_d, 7, fu, u0, fc,
              (const char *const[6]){"--init", fmt("u=%s", t_path("in_u.npy")), "--init",
                                     fmt("u.prev=%s", t_path("in_u0.npy")), "--init",
                                     fmt("c=%s", t_path("in_c.npy"))});
    /* zero steps: both levels are written as given, mirrored (the kernel never reads the
     * previous level's boundary, so only --out u.prev shows it) */
    make_npy(t_path("in_up0.npy"), 1, hdr, up0, bytes);
    const char *raw[6] = {"--init", fmt("u=%s", t_path("in_u0.npy")),
                          "--init", fmt("u.prev=%s", t_path("in_up0.npy")),
                          "--init", fmt("c=%s", t_path("in_c.npy"))};
    wave_case("wave neumann, 0 steps", &wave_copy, 0, u0, up0, fc, raw);
    wave_case("wave neumann, 1 step", &wave_copy, 1, u0, up0, fc, raw);
    free(fu);
    free(fp);
    free(fc);
    free(u0);
    free(up0);
    free(c);
}

/* ------------------------------------------------------------------ mistakes */

static void expect(t_run_result *r, int status, const char *needle) {
    if (r->status != status)
        fprintf(stderr, "exit status %d, expected %d; stderr: %s", r->status, status, r->err);
    CHECK_EQ_INT(r->status, status);
    CHECK_HAS(r->err, needle);
    CHECK(strcmp(r->out, "") == 0);
}

static void test_command_line_errors(void) {
    const char *in = t_path("cl_in.npy");
    double z[60] = {0};
    make_npy(in, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4, 5), }", z, sizeof z);

    t_run_result *r = t_run(&heat_d, "--size", "2,64,64", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 2);
    CHECK(strcmp(r->err, "heat3d: error: --size 2,64,64: x is 2, but this stencil needs at least 3 "
                         "(halo 1 below + 1 above + 1 interior cell)\n") == 0);
    expect(t_run(&heat_d, "--size", "64,64,2", "--steps", "1", NULL), 2,
           "z is 2, but this stencil needs at least 3");
    expect(t_run(&heat_d, "--size", "64,64", "--steps", "1", NULL), 2,
           "--size 64,64: expected 3 positive integers x,y,z separated by commas (this stencil is 3d)");
    expect(t_run(&heat_d, "--size", "8,0,8", "--steps", "1", NULL), 2, "expected 3 positive integers");
    expect(t_run(&heat_d, "--size", "8,8,8,8", "--steps", "1", NULL), 2, "expected 3 positive integers");
    expect(t_run(&heat_d, "--size", "8,-8,8", "--steps", "1", NULL), 2, "expected 3 positive integers");
    expect(t_run(&heat_d, "--size", "4000000000,4000000000,4000000000", "--steps", "1", NULL), 2,
           "the grid is too large");
    expect(t_run(&wave_d, "--size", "11,9,1", "--steps", "1", NULL), 2, "expected 2 positive integers x,y");
    expect(t_run(&heat_d, "--steps", "1", NULL), 2, "--size is required");
    expect(t_run(&heat_d, "--size", "8,8,8", NULL), 2, "--steps is required");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "-1", NULL), 2,
           "--steps -1: expected a non-negative integer");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1x", NULL), 2,
           "--steps 1x: expected a non-negative integer");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", NULL), 2, "--steps needs a value");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--dir", "--quiet", NULL), 2,
           "--dir needs a value, and '--quiet' is an option (write --dir=--quiet for a value that starts "
           "with --)");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha=0x10", NULL), 2,
           "--param alpha=0x10: '0x10' is hexadecimal; give a decimal number");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "9223372036854775807", NULL), 2,
           "--steps 9223372036854775807: at most 1000000000000000"); /* (overflowed the models) */
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--threads", "100000", NULL), 2,
           "--threads 100000: more threads than any machine runs (at most 4096)"); /* (libgomp crashed) */
    expect(t_run(&heat_d, "--size", "8,8,8", "--size", "9,9,9", "--steps", "1", NULL), 2,
           "--size is given twice");

    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "beta=1", NULL), 2,
           "heat3d: error: --param beta=1: this stencil has no param 'beta'; its params are: alpha");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha=abc", NULL), 2,
           "--param alpha=abc: 'abc' is not a finite number");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha=1e999", NULL), 2,
           "not a finite");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha=nan", NULL), 2,
           "not a finite");
    expect(
        t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha=1", "--param", "alpha=2", NULL),
        2, "'alpha' is already set");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--param", "alpha", NULL), 2,
           "expected NAME=VALUE");
    expect(t_run(&wave_d, "--size", "8,8", "--steps", "1", "--param", "k=1", NULL), 2,
           "this stencil has no params");

    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--init", fmt("v=%s", in), NULL), 2,
           fmt("--init v=%s: this stencil has no field 'v'; its fields are: u", in));
    expect(t_run(&wave_d, "--size", "8,8", "--steps", "1", "--out", "w=x.npy", NULL), 2,
           "this stencil has no field 'w'; its fields are: u, c");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--init", fmt("u.prev=%s", in), NULL), 2,
           "'u' has one time level; NAME.prev is only for fields declared with 'levels 2' (here: none)");
    expect(t_run(&wave_d, "--size", "8,8", "--steps", "1", "--init", "c.prev=x.npy", NULL), 2, "(here: u)");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--init", "u", NULL), 2, "expected NAME=FILE");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--init", "u=", NULL), 2, "expected NAME=FILE");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--init", "u=a", "--init", "u=b", NULL), 2,
           "u is already given as 'a'");

    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--init", fmt("u=%s", in), "--out",
                 fmt("u=%s", in), NULL),
           2, fmt("--out u=%s: '%s' is the --init file of u; input files are never overwritten", in, in));
    /* the same file under another name, and through a hard link */
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--init", fmt("u=%s", in), "--out",
                 fmt("u=%s/../%s/cl_in.npy", t_dir, strrchr(t_dir, '/') + 1), NULL),
           2, "is the --init file of u");
    CHECK(link(in, t_path("cl_link.npy")) == 0);
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--init", fmt("u=%s", in), "--out",
                 fmt("u=%s", t_path("cl_link.npy")), NULL),
           2, "is the --init file of u");
    expect(
        t_run(&wave_d, "--size", "8,8", "--steps", "1", "--out", "u=same.npy", "--out", "c=same.npy", NULL),
        2, "'same.npy' is also the --out file of u");
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--init", fmt("u=%s", in), "--report", in, NULL),
           2, "is the --init file of u");

    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--bogus", NULL), 2, "unknown option '--bogus'");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "extra", NULL), 2,
           "unexpected argument 'extra'");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--quiet=yes", NULL), 2,
           "--quiet takes no value");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mem", "2X", NULL), 2,
           "--mem 2X: expected a byte count");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mem", "0", NULL), 2, "must be positive");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--threads", "0", NULL), 2, "--threads 0");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "gpu", NULL), 2,
           "--mode gpu: expected one of incore, ooc, mmap");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--tuner", "x", NULL), 2,
           "expected one of blk, naive");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--schedule", "alg3", NULL), 2,
           "expected one of ref, alg1, alg2");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--block", "4,4", NULL), 2,
           "--block 4,4: expected by,bz,bt");
    expect(t_run(&wave_d, "--size", "8,8", "--steps", "1", "--block", "4,4,4", NULL), 2, "expected by,bt");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--block", "4,4,2", "--tuner", "blk", NULL), 2,
           "cannot be combined with --tuner blk");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--dir", "", NULL), 2,
           "--dir: expected a directory");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--rank", "speed", NULL), 2,
           "--rank speed: expected one of time, bytes");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--block", "4,4,2", "--rank", "bytes", NULL), 2,
           "cannot be combined with --rank bytes");

    /* what this build cannot do yet is refused, never run some other way instead */
    const char *o = t_path("ooc.npy");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "ooc", "--block", "8,4,2",
                 "--schedule", "alg2", "--resume", "--dir", t_dir, "--out", fmt("u=%s", o), NULL),
           1, "--schedule alg2 updates its files in place");
    CHECK(!t_exists(o));
    /* --mode mmap runs the in-core engine on mapped files: the same result, no files left */
    const char *m = t_path("mmap.npy"), *ic = t_path("incore.npy");
    expect(t_run(&heat_d, "--size", "12,10,8", "--steps", "3", "--mode=mmap", "--dir", t_dir, "--out",
                 fmt("u=%s", m), NULL),
           0, "");
    expect(t_run(&heat_d, "--size", "12,10,8", "--steps", "3", "--out", fmt("u=%s", ic), NULL), 0, "");
    CHECK(t_files_equal(m, ic));
    CHECK(t_count_entries(".mmap-") == 0);
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "ooc", "--dir", t_dir, "--tuner",
                 "naive", NULL),
           0, "");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "ooc", "--plan-only", "--out",
                 fmt("u=%s", ic), NULL),
           2, "--plan-only computes nothing");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "ooc", "--block", "0,4,2", NULL), 2,
           "--block 0,4,2");
}

/* Wider halos: the size rule counts them, and neumann needs an interior as wide as the halo. */
static void test_size_rule(void) {
    stn_program_desc d2 = heat_d, n2 = heat_n;
    for (int k = 0; k < 3; k++)
        d2.halo_lo[k] = d2.halo_hi[k] = n2.halo_lo[k] = n2.halo_hi[k] = 2;
    expect(
        t_run(&d2, "--size", "4,8,8", "--steps", "0", NULL), 2,
        "--size 4,8,8: x is 4, but this stencil needs at least 5 (halo 2 below + 2 above + 1 interior cell)");
    expect(
        t_run(&n2, "--size", "8,5,8", "--steps", "0", NULL), 2,
        "--size 8,5,8: y is 5, but this stencil needs at least 6 (halo 2 below + 2 above + 2 interior cells; "
        "neumann boundaries mirror interior cells");
    stn_program_desc up = heat_d; /* an upwind stencil: halo 2 below, 0 above, in x */
    up.halo_lo[0] = 2;
    up.halo_hi[0] = 0;
    expect(t_run(&up, "--size", "2,8,8", "--steps", "0", NULL), 2,
           "(halo 2 below + 0 above + 1 interior cell)");
}

static void test_run_errors(void) {
    const char *out = t_path("never.npy"), *keep = t_path("keep.npy");
    const char *missing = t_path("missing.npy");
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "2", "--init", fmt("u=%s", missing), "--out",
                 fmt("u=%s", out), NULL),
           1,
           fmt("heat3d: error: --init u=%s: cannot open '%s': No such file or directory", missing, missing));
    CHECK(!t_exists(out));

    /* a wrong input never clobbers an existing output */
    CHECK(t_write_file(keep, "precious", 8) == 0);
    float f[60] = {0};
    make_npy(t_path("f32.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, 5), }", f,
             sizeof f);
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "2", "--init", fmt("u=%s", t_path("f32.npy")),
                 "--out", fmt("u=%s", keep), NULL),
           1, "holds '<f4' (float32); this stencil is f64 ('<f8'): convert with a.astype('<f8')");
    char *text = t_read_file(keep, NULL);
    CHECK(text && strcmp(text, "precious") == 0);
    free(text);
    double d[60] = {0};
    make_npy(t_path("shape.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5, 4), }", d,
             sizeof d);
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "2", "--init", fmt("u=%s", t_path("shape.npy")),
                 "--out", fmt("u=%s", keep), NULL),
           1, "has shape (3, 5, 4), but this grid needs (3, 4, 5) = (nz, ny, nx) for --size 5,4,3");
    text = t_read_file(keep, NULL);
    CHECK(text && strcmp(text, "precious") == 0);
    free(text);

    /* the second output cannot be created: the first one is not left behind either */
    const char *first = t_path("first.npy");
    expect(t_run(&wave_d, "--size", "8,8", "--steps", "2", "--out", fmt("u=%s", first), "--out",
                 fmt("c=%s", t_path("nodir/c.npy")), NULL),
           1, fmt("--out c=%s: cannot create", t_path("nodir/c.npy")));
    CHECK(!t_exists(first));
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--out", fmt("u=%s", t_dir), NULL), 1,
           "it is a directory");
    expect(t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--report", t_path("nodir/r.json"), "--quiet",
                 NULL),
           1, fmt("--report %s: cannot create", t_path("nodir/r.json")));
    CHECK_EQ_INT(t_count_entries(".partial-"), 0);
}

/* A step that fails after `fail_after` calls, as a kernel with sub-steps does when the scratch of
 * its tiles cannot be allocated. */
static int fail_after;
static int heat_step_failing(const double *params, const stn_view *v, const void *const *src,
                             void *const *dst, const stn_box *b, int64_t iy, int64_t iz) {
    if (fail_after-- <= 0)
        return -ENOMEM;
    return heat_step(params, v, src, dst, b, iy, iz);
}

static void test_kernel_failure(void) {
    stn_program_desc d = heat_d;
    d.step = heat_step_failing;
    const char *out = t_path("kernel-fail.npy");
    const char *modes[] = {"incore", "ooc"};
    for (int m = 0; m < 2; m++) {
        fail_after = 2;
        expect(t_run(&d, "--size", "9,8,7", "--steps", "6", "--mode", modes[m], "--dir", t_dir,
                     "--time-tiles", "off", "--out", fmt("u=%s", out), "--quiet", NULL),
               1, "heat3d: error: the kernel of 'heat3d' failed on cells [1,8) x ");
        CHECK(!t_exists(out));
    }
    fail_after = 0;
    expect(t_run(&d, "--size", "9,8,7", "--steps", "6", "--mode", "incore", "--out", fmt("u=%s", out), NULL),
           1, "Cannot allocate memory (the scratch of its sub-steps' cache tiles could not be allocated)");
    CHECK(!t_exists(out));
}

static void test_help_version_warnings(void) {
    t_run_result *r = t_run(&heat_d, "--help", NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK_HAS(r->out, "Usage: heat3d --size X,Y,Z --steps N");
    CHECK_HAS(r->out, "alpha");
    CHECK(strcmp(r->err, "") == 0);
    r = t_run(&heat_d, "--size", "bad", "-h", NULL); /* help wins over mistakes */
    CHECK_EQ_INT(r->status, 0);
    CHECK_HAS(r->out, "--out NAME=FILE");
    r = t_run(&heat_d, "--version", NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK_HAS(r->out, "heat3d (stencilc test, runtime " STN_RT_VERSION ")");

    /* out-of-core options in-core: accepted, warned about, recorded in the report */
    const char *rep = t_path("warn.json");
    r = t_run(&heat_d, "--size", "5,4,3", "--steps", "1", "--dir", t_dir, "--block", "2,2,1", "--resume",
              "--report", rep, NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK_HAS(r->err, "heat3d: warning: --block only affects the out-of-core engine");
    CHECK(strstr(r->err, "--dir") == NULL); /* scripts pass --dir routinely: no warning */
    char *json = t_read_file(rep, NULL);
    CHECK_HAS(
        json,
        "\"warnings\": [\n    \"--block only affects the out-of-core engine; --mode incore ignores it\"");
    CHECK_HAS(json, "--resume only affects");
    free(json);
    /* a budget smaller than the grid: a warning in-core */
    r = t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mem", "1K", "--report", rep, NULL);
    CHECK_EQ_INT(r->status, 0);
    CHECK_HAS(r->err,
              "heat3d: warning: the in-core run needs 8.00 KiB for its buffers, more than the DRAM budget "
              "of 1.00 KiB (--mem)");
}

static void test_bad_descriptor(void) {
    stn_program_desc bad = heat_d;
    bad.nsrc = 0;
    t_run_result *r = t_run(&bad, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
    CHECK_HAS(r->err, "internal error: invalid program descriptor");
    bad = heat_d;
    bad.npy_descr = "<f4";
    r = t_run(&bad, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
}

int main(void) {
    t_mkdir();
    int fds = t_count_fds();
    test_heat_dirichlet();
    test_heat_neumann();
    test_wave();
    test_command_line_errors();
    test_size_rule();
    test_run_errors();
    test_kernel_failure();
    test_help_version_warnings();
    test_bad_descriptor();
    /* nothing leaks from one stn_program_main to the next */
    CHECK_EQ_INT(stn_allocated_bytes(), 0);
    CHECK_EQ_INT(t_count_fds(), fds);
    CHECK_EQ_INT(t_count_entries(".partial-"), 0);
    return t_result();
}
