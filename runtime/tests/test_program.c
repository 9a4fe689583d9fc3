/* stn_program_main end to end, in one process, many times: hand-written descriptors stand in
 * for generated code (a 3d 7-point heat stencil, dirichlet and neumann; a 2d f32 wave
 * equation with two time levels and an input coefficient field), and every result is
 * compared bit for bit with a naive reference computed here. */
#include "test_kernels.h"

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
    "assert set(d['seconds']) == {'total', 'job', 'import', 'loop', 'export', 'remove', 'read', 'write', "
    "'copy',\n"
    "                             'compute', 'wait', 'init'}, d['seconds']\n"
    "assert d['seconds']['remove'] == 0, d['seconds']  # (in-core: no scratch files)\n"
    "assert d['seconds']['job'] >= d['seconds']['loop'], d['seconds']\n"
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

int main(void) {
    t_mkdir();
    int fds = t_count_fds();
    test_heat_dirichlet();
    test_heat_neumann();
    test_wave();
    return t_no_leaks(fds);
}
