/* .npy files: round trips through the atomic writer, every header numpy.save can write,
 * and a clear error for each way an input file can be wrong. */
#include "test_util.h"

#include "base/stn_internal.h"

#include <stdint.h>

static double pattern(int64_t i) { return (double)i * 1.5 - 7.0; }

static void fill(double *a, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        a[i] = pattern(i);
}

static int matches(const double *a, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (a[i] != pattern(i))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ writing */

static void test_roundtrip_f64_3d(void) {
    const char *path = t_path("rt3.npy");
    int64_t shape[3] = {3, 4, 5}; /* (nz, ny, nx) */
    double a[60], b[60];
    fill(a, 60);
    stn_npy_writer *w = NULL;
    stn_stats st = {0};
    CHECK(stn_npy_writer_open(path, "<f8", 3, shape, &w) == 0);
    CHECK(w != NULL);
    CHECK(!t_exists(path)); /* nothing under the final name before commit */
    CHECK(stn_npy_writer_write(w, a, 20 * sizeof(double), &st) == 0);
    CHECK(stn_npy_writer_write(w, a + 20, 40 * sizeof(double), &st) == 0);
    CHECK(stn_npy_writer_commit(w) == 0);
    CHECK_EQ_INT(st.bytes_written, 480);
    CHECK_EQ_INT(t_count_entries(".partial-"), 0);

    size_t n = 0;
    unsigned char *raw = (unsigned char *)t_read_file(path, &n);
    CHECK(raw != NULL);
    CHECK_EQ_INT(n, STN_NPY_DATA_OFFSET + 480);
    CHECK(raw && memcmp(raw, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK(raw && raw[8] + 256 * raw[9] == STN_NPY_DATA_OFFSET - 10);
    CHECK(raw && raw[STN_NPY_DATA_OFFSET - 1] == '\n');
    CHECK(raw && strncmp((char *)raw + 10, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4, 5), }",
                         62) == 0);
    CHECK(raw && raw[STN_NPY_DATA_OFFSET - 2] == ' ');
    CHECK(raw && memcmp(raw + STN_NPY_DATA_OFFSET, a, 480) == 0);
    free(raw);

    int fd = open(path, O_RDONLY);
    stn_npy_header h;
    CHECK(stn_npy_read_header(path, fd, &h) == 0);
    close(fd);
    CHECK(strcmp(h.descr, "<f8") == 0);
    CHECK_EQ_INT(h.fortran_order, 0);
    CHECK_EQ_INT(h.ndim, 3);
    CHECK(h.shape[0] == 3 && h.shape[1] == 4 && h.shape[2] == 5);
    CHECK_EQ_INT(h.data_offset, STN_NPY_DATA_OFFSET);
    CHECK_EQ_INT(h.file_size, STN_NPY_DATA_OFFSET + 480);
    CHECK(stn_npy_check(path, &h, "<f8", 3, shape) == 0);

    memset(b, 0, sizeof b);
    stn_stats rs = {0};
    CHECK(stn_npy_load(path, "<f8", 3, shape, b, &rs) == 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK_EQ_INT(rs.bytes_read, 480);
    CHECK(rs.seconds[STN_PHASE_READ] >= 0);
}

static void test_roundtrip_f32_2d(void) {
    const char *path = t_path("rt2.npy");
    int64_t shape[2] = {7, 3};
    float a[21], b[21];
    for (int i = 0; i < 21; i++)
        a[i] = (float)i / 3.0f;
    stn_npy_writer *w;
    CHECK(stn_npy_writer_open(path, "<f4", 2, shape, &w) == 0);
    CHECK(stn_npy_writer_write(w, a, sizeof a, NULL) == 0);
    CHECK(stn_npy_writer_commit(w) == 0);
    CHECK(stn_npy_load(path, "<f4", 2, shape, b, NULL) == 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
    /* the same file read as f64 names both types and the fix */
    double d[21];
    int rc = stn_npy_load(path, "<f8", 2, shape, d, NULL);
    CHECK_EQ_INT(rc, -EINVAL);
    CHECK_HAS(stn_errmsg(),
              "holds '<f4' (float32); this stencil is f64 ('<f8'): convert with a.astype('<f8')");
    CHECK_HAS(stn_errmsg(), path);
}

static void test_writer_atomic(void) {
    const char *path = t_path("keep.npy");
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s/.keep.npy.partial-%ld", t_dir, (long)getpid());
    CHECK(t_write_file(path, "old", 3) == 0);
    int64_t shape[1] = {4};
    double a[4] = {1, 2, 3, 4};
    size_t n;
    char *text;

    /* abort: the temporary goes, the old file stays */
    stn_npy_writer *w;
    CHECK(stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    CHECK(t_exists(tmp));
    CHECK(stn_npy_writer_write(w, a, 16, NULL) == 0);
    stn_npy_writer_abort(w);
    CHECK(!t_exists(tmp));
    text = t_read_file(path, &n);
    CHECK(text && n == 3 && memcmp(text, "old", 3) == 0);
    free(text);

    /* an incomplete array is never committed */
    CHECK(stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    CHECK(stn_npy_writer_write(w, a, 16, NULL) == 0);
    CHECK_EQ_INT(stn_npy_writer_commit(w), -EIO);
    CHECK_HAS(stn_errmsg(), "incomplete: 16 of its 32 data bytes");
    CHECK(!t_exists(tmp));
    text = t_read_file(path, &n);
    CHECK(text && n == 3);
    free(text);

    /* writing past the array's end is refused */
    CHECK(stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    CHECK(stn_npy_writer_write(w, a, 24, NULL) == 0);
    CHECK_EQ_INT(stn_npy_writer_write(w, a, 16, NULL), -EINVAL);
    CHECK_HAS(stn_errmsg(), "cannot write 16 more bytes");
    CHECK(stn_npy_writer_write(w, a + 3, 8, NULL) == 0);
    /* commit replaces the old file */
    CHECK(stn_npy_writer_commit(w) == 0);
    CHECK(!t_exists(tmp));
    text = t_read_file(path, &n);
    CHECK(text && n == STN_NPY_DATA_OFFSET + 32);
    free(text);

    /* a directory that does not exist: the message names the file and the cause */
    const char *bad = t_path("no/such/dir/x.npy");
    CHECK_EQ_INT(stn_npy_writer_open(bad, "<f8", 1, shape, &w), -ENOENT);
    CHECK(w == NULL);
    CHECK_HAS(stn_errmsg(), "no/such/dir/.x.npy.partial-");
    CHECK_HAS(stn_errmsg(), "No such file or directory");
    CHECK_EQ_INT(stn_npy_writer_open(t_dir, "<f8", 1, shape, &w), -EISDIR);
    CHECK_EQ_INT(stn_npy_writer_open(path, "<c4x", 1, shape, &w), -EINVAL);
}

/* ------------------------------------------------------------------ reading what numpy writes */

static void load_ok(const char *name, int major, const char *dict, int ndim, const int64_t *shape,
                    int64_t n) {
    const char *path = t_path(name);
    double a[64], b[64];
    fill(a, n);
    make_npy(path, major, dict, a, (size_t)n * sizeof(double));
    memset(b, 0, sizeof b);
    int rc = stn_npy_load(path, "<f8", ndim, shape, b, NULL);
    if (rc != 0 || !matches(b, n)) {
        fprintf(stderr, "load of %s (version %d, %s) failed: rc %d, %s\n", name, major, dict, rc,
                stn_errmsg());
        t_failures++;
    }
}

static void test_read_variants(void) {
    int64_t s34[2] = {3, 4}, s5[1] = {5}, s213[3] = {2, 1, 3};
    load_ok("v1.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 2, s34, 12);
    load_ok("v2.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 2, s34, 12);
    load_ok("v3.npy", 3, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 2, s34, 12);
    load_ok("order.npy", 1, "{ 'shape' : ( 3 , 4 ) ,'fortran_order':False,   'descr':'<f8' }", 2, s34, 12);
    load_ok("dq.npy", 1, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,4,)}", 2, s34, 12);
    load_ok("long.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }", 2, s34, 12);
    load_ok("one.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }", 1, s5, 5);
    load_ok("zero_d.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0, NULL, 1);
    load_ok("odd.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1, 3), }", 3, s213, 6);

    /* the header fields as parsed */
    const char *path = t_path("v2.npy");
    int fd = open(path, O_RDONLY);
    stn_npy_header h;
    CHECK(stn_npy_read_header(path, fd, &h) == 0);
    close(fd);
    CHECK_EQ_INT(h.data_offset, 128); /* 12 + 61 characters, padded to a multiple of 64 */
    CHECK_EQ_INT(h.file_size, 128 + 96);
    CHECK_EQ_INT(h.ndim, 2);
}

/* ------------------------------------------------------------------ errors */

/* Loading `path` as (3, 4) f64 fails with `rc` and a message containing `needle` and the path. */
static void load_fails(const char *path, int rc, const char *needle) {
    int64_t shape[2] = {3, 4};
    double b[12];
    int got = stn_npy_load(path, "<f8", 2, shape, b, NULL);
    if (got != rc) {
        fprintf(stderr, "loading %s: rc %d, expected %d (%s)\n", path, got, rc, stn_errmsg());
        t_failures++;
    }
    CHECK_HAS(stn_errmsg(), needle);
    CHECK_HAS(stn_errmsg(), path);
}

static void bad_header(const char *name, int major, const char *dict, const char *needle) {
    double a[12];
    fill(a, 12);
    make_npy(t_path(name), major, dict, a, sizeof a);
    load_fails(t_path(name), -EINVAL, needle);
}

static void test_content_errors(void) {
    double a[13];
    fill(a, 13);
    const char *hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
    bad_header("f4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
               "holds '<f4' (float32); this stencil is f64 ('<f8'): convert with a.astype('<f8')");
    bad_header("be.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 4), }",
               "holds '>f8' (big-endian float64)");
    bad_header("i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", "'<i8' (int64)");
    bad_header("fortran.npy", 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }",
               "is in Fortran order");
    bad_header("shape.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }",
               "has shape (4, 3), but this grid needs (3, 4) = (ny, nx) for --size 4,3");
    bad_header("flat.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (12,), }",
               "has shape (12,), but this grid needs (3, 4)");

    make_npy(t_path("short.npy"), 1, hdr, a, 11 * sizeof(double) + 3);
    load_fails(t_path("short.npy"), -EINVAL,
               "is truncated: expected 224 bytes (128 of header + 96 of data), found 219");
    make_npy(t_path("long.npy"), 1, hdr, a, 13 * sizeof(double));
    load_fails(t_path("long.npy"), -EINVAL,
               "has 8 bytes of trailing data after the array: expected 224 bytes (128 of header + 96 of "
               "data), found 232");
    make_npy(t_path("nodata.npy"), 1, hdr, a, 0);
    load_fails(t_path("nodata.npy"), -EINVAL, "is truncated");
}

static void test_format_errors(void) {
    bad_header("nokey.npy", 1, "{'descr': '<f8', 'fortran_order': False}", "the key 'shape' is missing");
    bad_header("extra.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'foo': 1}",
               "unexpected key 'foo'");
    bad_header("twice.npy", 1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}",
               "a key appears twice");
    bad_header("junk.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } x",
               "unexpected text after the closing '}'");
    bad_header("unterminated.npy", 1, "{'descr': '<f8", "unterminated string");
    bad_header("struct.npy", 1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3, 4), }",
               "structured array");
    bad_header("bool.npy", 1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 4), }",
               "'fortran_order' must be True or False");
    bad_header("neg.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, -4), }",
               "expected a dimension");
    bad_header("brace.npy", 1, "'descr': '<f8'", "expected '{'");
    bad_header("v4.npy", 4, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }",
               "format version 4.0; this runtime reads versions 1.0, 2.0 and 3.0");

    const char *p = t_path("magic.npy");
    CHECK(t_write_file(p, "NUMPY\x01\x00 and more text", 22) == 0);
    load_fails(p, -EINVAL, "is not a .npy file: it does not start with \\x93NUMPY");
    p = t_path("zip.npz");
    CHECK(t_write_file(p, "PK\x03\x04\x14\x00\x00\x00", 8) == 0);
    load_fails(p, -EINVAL, "perhaps an .npz");
    p = t_path("empty.npy");
    CHECK(t_write_file(p, "", 0) == 0);
    load_fails(p, -EINVAL, "is not a .npy file");
    p = t_path("preamble.npy");
    CHECK(t_write_file(p, "\x93NUMPY\x01", 7) == 0);
    load_fails(p, -EINVAL, "is truncated");
    p = t_path("hlen.npy");
    CHECK(t_write_file(p, "\x93NUMPY\x01\x00\xff\x00{'descr'", 17) == 0);
    load_fails(p, -EINVAL, "its .npy header claims 255 bytes but the file has only 17");

    load_fails(t_path("missing.npy"), -ENOENT, "No such file or directory");
    CHECK_HAS(stn_errmsg(), "cannot open '");
    load_fails(t_dir, -EISDIR, "it is a directory, not a regular file");
}

/* A load of several chunks is read by several threads at once (the in-core --init import was one
 * serial read), and lands whole: an array of 5 chunks and a bit, at an offset that is no multiple of
 * anything, with every value where it belongs. */
static void test_parallel_load(void) {
    const char *path = t_path("big.npy");
    int64_t n = (int64_t)(5 * STN_PREAD_CHUNK / sizeof(double)) + 777, shape[1] = {n};
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    CHECK(a && b);
    fill(a, n);
    stn_npy_writer *w = NULL;
    stn_stats st = {0};
    CHECK(stn_npy_writer_open(path, "<f8", 1, shape, &w) == 0);
    CHECK(stn_npy_writer_write(w, a, (size_t)n * sizeof *a, &st) == 0);
    CHECK(stn_npy_writer_commit(w) == 0);
    memset(b, 0, (size_t)n * sizeof *b);
    CHECK(stn_npy_load(path, "<f8", 1, shape, b, &st) == 0);
    CHECK(matches(b, n));
    CHECK_EQ_INT(st.bytes_read, (uint64_t)n * sizeof(double));

    int fd = open(path, O_RDONLY), readers = 0;
    CHECK(fd >= 0);
    memset(b, 0, (size_t)n * sizeof *b);
    size_t bytes = (size_t)(n - 3) * sizeof *b;
    CHECK(stn_pread_parallel(fd, b, bytes, STN_NPY_DATA_OFFSET + 3 * sizeof *b, path, &readers) == 0);
    /* 6 chunks: 6 threads took part (which read what is the scheduler's: on a loaded machine the first
     * could take every chunk before the others started, so the count of threads that read one varied) */
    CHECK_EQ_INT(readers, 6);
    for (int64_t i = 0; i < n - 3; i++)
        if (b[i] != pattern(i + 3)) {
            CHECK(b[i] == pattern(i + 3));
            break;
        }
    readers = 0; /* past the end: the file's name and the offset in the message */
    CHECK(stn_pread_parallel(fd, b, bytes, STN_NPY_DATA_OFFSET + 8 * sizeof *b, path, &readers) == -EIO);
    CHECK(strstr(stn_errmsg(), path) != NULL && strstr(stn_errmsg(), "ended early") != NULL);
    close(fd);
    free(a);
    free(b);
}

int main(void) {
    t_mkdir();
    test_roundtrip_f64_3d();
    test_roundtrip_f32_2d();
    test_writer_atomic();
    test_read_variants();
    test_content_errors();
    test_format_errors();
    test_parallel_load();
    CHECK_EQ_INT(t_count_entries(".partial-"), 0);
    return t_result();
}
