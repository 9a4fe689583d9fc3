/* stn_program_main's mistakes, in one process, many times: every command-line mistake refused with
 * exit status 2 and a message that names the option, the value and what is accepted; run-time failures
 * with status 1, leaving no output behind; --help, --version and the warnings.  The descriptors are
 * test_kernels.h's, as test_program.c's. */
#include "test_kernels.h"

/* ------------------------------------------------------------------ mistakes */

static void expect(t_run_result *r, int status, const char *needle) {
    if (r->status != status)
        fprintf(stderr, "exit status %d, expected %d; stderr: %s", r->status, status, r->err);
    CHECK_EQ_INT(r->status, status);
    CHECK_HAS(r->err, needle);
    CHECK(strcmp(r->out, "") == 0);
}

/* An .npy of 3 x 4 x 5 zeros at `name`, for the --init mistakes; its path. */
static const char *zeros_npy(const char *name) {
    const char *in = t_path(name);
    double z[60] = {0};
    make_npy(in, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4, 5), }", z, sizeof z);
    return in;
}

/* --size, --steps and the options that take a value: every mistake named with what is accepted. */
static void test_size_and_steps_errors(void) {
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
}

/* --param: an unknown name, a value that is no finite decimal number, a param set twice. */
static void test_param_errors(void) {
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
}

/* --init and --out: unknown fields, a previous level of a field of one, the forms, a file given twice. */
static void test_field_file_errors(void) {
    const char *in = zeros_npy("cl_in.npy");
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
}

/* An --init file is never an --out or --report file, under any name; two --out files differ. */
static void test_same_file_errors(void) {
    const char *in = zeros_npy("cl_in.npy");
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
}

/* Unknown options and arguments, and the values of the choices. */
static void test_option_errors(void) {
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--bogus", NULL), 2, "unknown option '--bogus'");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "extra", NULL), 2,
           "unexpected argument 'extra'");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--quiet=yes", NULL), 2,
           "--quiet takes no value");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mem", "2X", NULL), 2,
           "--mem 2X: expected a byte count");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mem", "0", NULL), 2, "must be positive");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--threads", "0", NULL), 2, "--threads 0");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "gpux", NULL), 2,
           "--mode gpux: expected one of incore, ooc, mmap, gpu, gpu-ooc");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--mode", "gpu-ooc", NULL), 2,
           "--mode gpu-ooc: this program was built without CUDA");
    expect(t_run(&heat_d, "--size", "8,8,8", "--steps", "1", "--gpu-mem", "0", NULL), 2,
           "--gpu-mem 0: expected a positive byte count");
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
}

/* What this build cannot do yet is refused, never run some other way instead; --mode mmap runs the in-core
 * engine on mapped files. */
static void test_refusals(void) {
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
    /* a boundary per face (STN_BC_MIXED) needs the boundary_op function and faces of one kind each */
    stn_field_desc mixed = heat_fields_d[0];
    mixed.boundary = STN_BC_MIXED, mixed.neumann_faces = 0x1f, mixed.dirichlet_faces = 0x20;
    bad = heat_d;
    bad.fields = &mixed;
    r = t_run(&bad, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
    CHECK_HAS(r->err, "field 'u' has a boundary per face (neumann faces 0x1f, dirichlet faces 0x20) but the "
                      "descriptor has no boundary_op function");
    mixed.dirichlet_faces = 0x21;
    r = t_run(&bad, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
    CHECK_HAS(r->err, "neumann faces 0x1f, dirichlet faces 0x21");
    /* a field that holds the level before .prev of a three-level field: named after it, a two-level one */
    stn_field_desc lev[2] = {wave_fields_d[0], heat_fields_d[0]};
    lev[1].name = "v.prev.prev", lev[1].src_slot = 2, lev[1].dst_slot = 1, lev[1].level2_of = 1;
    stn_program_desc lv = wave_d;
    lv.fields = lev, lv.nfields = 2, lv.nsrc = 3, lv.ndst = 2;
    r = t_run(&lv, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
    CHECK_HAS(r->err, "field 'v.prev.prev' claims to hold the level before .prev of field 0");
    lev[1].name = "u.prev", lev[1].level2_of = 0; /* a dot in an ordinary field's name */
    r = t_run(&lv, "--size", "5,4,3", "--steps", "1", NULL);
    CHECK_EQ_INT(r->status, 1);
    CHECK_HAS(r->err, "field 1 has no valid name");
}

int main(void) {
    t_mkdir();
    int fds = t_count_fds();
    test_size_and_steps_errors();
    test_param_errors();
    test_field_file_errors();
    test_same_file_errors();
    test_option_errors();
    test_refusals();
    test_size_rule();
    test_run_errors();
    test_kernel_failure();
    test_help_version_warnings();
    test_bad_descriptor();
    return t_no_leaks(fds);
}
