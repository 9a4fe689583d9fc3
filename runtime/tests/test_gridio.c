/* Grid files and the asynchronous IO queue (io/gridio.c, io/aio.c): O_DIRECT on a real file system, awkward
 * shapes, padded rows, exact byte counts, a queue deeper than its ring, two groups in flight,
 * the buffered fallback, and clear errors for short files and missing directories. */
#include "test_util.h"

#include "io/stn_gridio.h"

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

#define SENTINEL 0x5A /* buffer bytes a read must not touch */
#define PADDING 0xA5  /* what writers leave in the row padding */

/* The value of element (x, y, z) of grid number `tag`: exact in f32 for the shapes used here. */
static double val(int64_t x, int64_t y, int64_t z, int tag) {
    return (double)(x + 1000 * y + 100000 * z + 3000000 * tag) * 0.5;
}

static void put(char *p, int64_t esz, double v) {
    if (esz == 8)
        memcpy(p, &v, 8);
    else {
        float fv = (float)v;
        memcpy(p, &fv, 4);
    }
}

static double get(const char *p, int64_t esz) {
    if (esz == 8) {
        double v;
        memcpy(&v, p, 8);
        return v;
    }
    float fv;
    memcpy(&fv, p, 4);
    return fv;
}

/* A buffer of `planes` planes `plane` bytes apart, filled with SENTINEL. */
static char *new_buf(size_t plane, int64_t planes) {
    size_t n = plane * (size_t)planes;
    char *b = stn_alloc(n ? n : 4096, 65536); /* enough for every row alignment used here */
    if (!b) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    memset(b, SENTINEL, n);
    return b;
}

/* Rows [y0, y1) of planes [z0, z1) of grid `tag` into buf (plane z, row y at
 * (z - z0) * plane + (y - y0) * row_bytes), padding set to PADDING. */
static void fill(const stn_gridfile *f, char *buf, size_t plane, int64_t y0, int64_t y1, int64_t z0,
                 int64_t z1, int tag) {
    for (int64_t z = z0; z < z1; z++)
        for (int64_t y = y0; y < y1; y++) {
            char *row = buf + (size_t)(z - z0) * plane + (size_t)(y - y0) * (size_t)f->row_bytes;
            for (int64_t x = 0; x < f->nx; x++)
                put(row + x * f->esz, f->esz, val(x, y, z, tag));
            memset(row + f->nx * f->esz, PADDING, (size_t)(f->row_bytes - f->nx * f->esz));
        }
}

/* Checks what a read of that range left in buf: every element, and the gaps between planes still
 * SENTINEL.  Returns the number of bad elements (reports the first few). */
static int64_t verify(const stn_gridfile *f, const char *buf, size_t plane, const stn_span *sp, int tag,
                      const char *what) {
    int64_t y0 = sp->y0, y1 = sp->y1, z0 = sp->z0, z1 = sp->z1, bad = 0;
    size_t used = (size_t)(y1 - y0) * (size_t)f->row_bytes;
    for (int64_t z = z0; z < z1; z++) {
        const char *pl = buf + (size_t)(z - z0) * plane;
        for (int64_t y = y0; y < y1; y++) {
            const char *row = pl + (size_t)(y - y0) * (size_t)f->row_bytes;
            for (int64_t x = 0; x < f->nx; x++) {
                double got = get(row + x * f->esz, f->esz), want = val(x, y, z, tag);
                if (got != want && bad++ < 5)
                    fprintf(stderr, "%s: %s (%lld, %lld, %lld): got %g, expected %g\n", what, f->path,
                            (long long)x, (long long)y, (long long)z, got, want);
            }
        }
        if (z + 1 < z1)
            for (size_t k = used; k < plane; k++)
                if ((unsigned char)pl[k] != SENTINEL) {
                    if (bad++ < 5)
                        fprintf(stderr, "%s: byte %zu of the gap after plane %lld was written\n", what, k,
                                (long long)z);
                    break;
                }
    }
    return bad;
}

/* The file's layout checked with plain pread: row (y, z) at (z * ny + y) * row_bytes. */
static int64_t verify_layout(const stn_gridfile *f, int tag) {
    int fd = open(f->path, O_RDONLY);
    CHECK(fd >= 0);
    if (fd < 0)
        return 1;
    size_t n = (size_t)(f->nx * f->esz);
    char *row = malloc(n);
    int64_t bad = 0;
    for (int64_t z = 0; z < f->nz; z++)
        for (int64_t y = 0; y < f->ny; y++) {
            off_t off = (off_t)((z * f->ny + y) * f->row_bytes);
            if (pread(fd, row, n, off) != (ssize_t)n) {
                bad++;
                continue;
            }
            for (int64_t x = 0; x < f->nx; x++)
                if (get(row + x * f->esz, f->esz) != val(x, y, z, tag) && bad++ < 5)
                    fprintf(stderr, "layout: %s (%lld, %lld, %lld) is not at offset %lld + %lld\n", f->path,
                            (long long)x, (long long)y, (long long)z, (long long)off,
                            (long long)(x * f->esz));
        }
    free(row);
    close(fd);
    return bad;
}

/* Whether the file system of `dir` accepts O_DIRECT at all (independently of io/gridio.c). */
static int dir_accepts_odirect(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/odirect-probe", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0600);
    int e = errno;
    if (fd >= 0)
        close(fd);
    unlink(path);
    return fd >= 0 ? 1 : e == EINVAL ? 0 : -1;
}

static int expect_direct; /* the scratch directory accepts O_DIRECT: grid files must use it */

/* ------------------------------------------------------------------ round trips */

/* Write grid `tag` of this shape {nx, ny, nz, esz} in pieces (partial rows of a few planes at a time, and
 * whole planes merged), read it back in other pieces into buffers with a larger plane stride, and check every
 * element, the layout, the untouched gaps and the exact byte counts. */
static void roundtrip(const char *dir, const char *name, const int64_t shape[4], size_t align, int flags,
                      stn_aio *q, int tag) {
    int64_t nx = shape[0], ny = shape[1], nz = shape[2], esz = shape[3];
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    stn_gridfile f;
    int rc = stn_gridfile_open(&f, path, nx, ny, nz, esz, align, STN_GRIDFILE_CREATE | flags);
    CHECK_EQ_INT(rc, 0);
    if (rc) {
        fprintf(stderr, "%s\n", stn_errmsg());
        return;
    }
    int64_t rb = f.row_bytes;
    CHECK_EQ_INT(rb, stn_grid_row_bytes(nx, esz, align));
    CHECK(rb % (int64_t)align == 0 && rb >= nx * esz && rb - nx * esz < (int64_t)align);
    CHECK_EQ_INT(f.file_bytes, nz * ny * rb);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size == f.file_bytes);
    int fl = fcntl(f.fd, F_GETFL);
    CHECK_EQ_INT(f.direct, (fl & O_DIRECT) != 0);
    if (flags & STN_GRIDFILE_BUFFERED)
        CHECK_EQ_INT(f.direct, 0);
    else if (expect_direct && strcmp(dir, t_dir) == 0)
        CHECK_EQ_INT(f.direct, 1);

    stn_stats st = {0};
    stn_aio_group gw = STN_AIO_GROUP_INIT;
    uint64_t expect_w = 0;
    /* the first half of the planes: pieces of up to 3 rows by 2 planes, planes apart by more than
     * the rows need; the rest: whole planes, contiguous, so that they merge */
    int64_t zsplit = nz / 2, npieces = 0;
    char *pieces[256];
    for (int64_t z0 = 0; z0 < zsplit; z0 += 2)
        for (int64_t y0 = 0; y0 < ny; y0 += 3) {
            int64_t z1 = z0 + 2 < zsplit ? z0 + 2 : zsplit, y1 = y0 + 3 < ny ? y0 + 3 : ny;
            size_t plane = (size_t)(y1 - y0) * (size_t)rb + 2 * align;
            char *b = new_buf(plane, z1 - z0);
            fill(&f, b, plane, y0, y1, z0, z1, tag);
            CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){y0, y1, z0, z1}, b, plane, &gw, &st), 0);
            expect_w += (uint64_t)((y1 - y0) * (z1 - z0) * rb);
            if (npieces < 256)
                pieces[npieces++] = b;
        }
    size_t whole = (size_t)(ny * rb);
    char *rest = new_buf(whole, nz - zsplit);
    fill(&f, rest, whole, 0, ny, zsplit, nz, tag);
    CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){0, ny, zsplit, nz}, rest, whole, &gw, &st), 0);
    expect_w += (uint64_t)((nz - zsplit) * ny * rb);
    CHECK(stn_aio_in_flight(q) <= 64);
    CHECK_EQ_INT(stn_aio_wait(q, &gw, &st), 0);
    CHECK_EQ_INT(gw.pending, 0);
    CHECK_EQ_INT(gw.bytes, expect_w);
    CHECK_EQ_INT(st.bytes_written, (uint64_t)f.file_bytes);
    CHECK_EQ_INT(expect_w, (uint64_t)f.file_bytes);
    CHECK_EQ_INT(st.bytes_read, 0);
    CHECK_EQ_INT(stn_gridfile_sync(&f), 0);
    for (int64_t i = 0; i < npieces; i++)
        stn_free(pieces[i]);
    stn_free(rest);
    CHECK_EQ_INT(verify_layout(&f, tag), 0);

    /* read back: the whole grid merged; then shifted rows of planes [1, nz) into a wider
     * stride; then a single row of the last plane; then single planes with partial rows */
    struct {
        int64_t y0, y1, z0, z1;
        size_t extra;
    } reads[] = {
        {0, ny, 0, nz, 0},           {ny > 2 ? 1 : 0, ny > 2 ? ny - 1 : ny, nz > 1 ? 1 : 0, nz, 3 * align},
        {ny - 1, ny, nz - 1, nz, 0}, {ny / 2, ny, nz / 2, nz / 2 + 1, align},
        {0, ny, 0, nz, align}, /* full rows, but not contiguous in memory: one request per plane */
    };
    for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++) {
        int64_t y0 = reads[k].y0, y1 = reads[k].y1, z0 = reads[k].z0, z1 = reads[k].z1;
        size_t plane = (size_t)(y1 - y0) * (size_t)rb + reads[k].extra;
        char *b = new_buf(plane, z1 - z0);
        stn_stats sr = {0};
        stn_aio_group g = STN_AIO_GROUP_INIT;
        CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){y0, y1, z0, z1}, b, plane, &g, &sr), 0);
        CHECK_EQ_INT(stn_aio_wait(q, &g, &sr), 0);
        uint64_t expect = (uint64_t)((y1 - y0) * (z1 - z0) * rb);
        CHECK_EQ_INT(sr.bytes_read, expect);
        CHECK_EQ_INT(g.bytes, expect);
        CHECK_EQ_INT(sr.bytes_written, 0);
        char what[128];
        snprintf(what, sizeof what, "read %zu of %s", k, name);
        CHECK_EQ_INT(verify(&f, b, plane, &(stn_span){y0, y1, z0, z1}, tag, what), 0);
        /* what the writer left in the padding comes back in the padding, and nowhere else */
        if (rb > nx * esz)
            CHECK((unsigned char)b[nx * esz] == PADDING && (unsigned char)b[rb - 1] == PADDING);
        stn_free(b);
    }
    stn_gridfile_close(&f);
    CHECK(f.path == NULL && f.fd == -1);
    stn_gridfile_close(&f); /* twice is fine */
}

/* ------------------------------------------------------------------ a queue fuller than its ring */

/* A new grid file DIR/NAME of 37 x ny x nz doubles, and a buffer of its planes filled with `tag`
 * (not yet written); *whole is a plane's bytes. */
static char *new_grid(const char *dir, const char *name, int64_t ny, int64_t nz, size_t align, int tag,
                      stn_gridfile *f, size_t *whole) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_EQ_INT(stn_gridfile_open(f, path, 37, ny, nz, 8, align, STN_GRIDFILE_CREATE), 0);
    *whole = (size_t)(f->ny * f->row_bytes);
    char *w = new_buf(*whole, f->nz);
    fill(f, w, *whole, 0, f->ny, 0, f->nz, tag);
    return w;
}

static void test_deep_queue(const char *dir, size_t align) {
    stn_aio *q = NULL;
    CHECK_EQ_INT(stn_aio_create(&q, 4, 4096), 0); /* depth 4, requests of at most 4 KiB */
    if (!q)
        return;
    stn_gridfile f;
    size_t whole;
    char *w = new_grid(dir, "deep.grid", 64, 8, align, 7, &f, &whole);
    stn_stats st = {0};
    stn_aio_group g = STN_AIO_GROUP_INIT;
    /* far more requests than the depth: (8 * 64 * row_bytes) / 4096 */
    CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){0, f.ny, 0, f.nz}, w, whole, &g, &st), 0);
    /* the call returns at once: 4 requests in flight, the rest held (one call, counted once) */
    CHECK(stn_aio_in_flight(q) <= 4);
    CHECK(stn_aio_queued(q) >= 1);
    CHECK(g.pending <= 5 && g.pending >= 1);
    /* polling moves it on without waiting; it finishes once polled often enough */
    for (int i = 0; i < 100000 && g.pending > 0; i++) { /* at most 10 s */
        CHECK_EQ_INT(stn_aio_poll(q, &st), 0);
        CHECK(stn_aio_in_flight(q) <= 4);
        usleep(100);
    }
    CHECK_EQ_INT(g.pending, 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
    CHECK_EQ_INT(st.bytes_written, (uint64_t)f.file_bytes);
    memset(&st, 0, sizeof st);
    stn_aio_group_reset(&g);
    CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){0, f.ny, 0, f.nz}, w, whole, &g, &st), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
    CHECK_EQ_INT(st.bytes_written, (uint64_t)f.file_bytes);
    CHECK_EQ_INT(g.bytes, (uint64_t)f.file_bytes);

    /* two groups in flight, with per-plane partial rows (one request per plane, several split):
     * wait for the second, then the first */
    size_t plane = (size_t)(60 * f.row_bytes) + align;
    char *a = new_buf(whole, 4), *b = new_buf(plane, 4); /* a is reused for whole planes */
    stn_aio_group ga = STN_AIO_GROUP_INIT, gb = STN_AIO_GROUP_INIT;
    stn_stats sa = {0}, sb = {0};
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){2, 62, 0, 4}, a, plane, &ga, &sa), 0);
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){2, 62, 4, 8}, b, plane, &gb, &sb), 0);
    CHECK(stn_aio_in_flight(q) <= 4);
    CHECK_EQ_INT(stn_aio_wait(q, &gb, &sb), 0);
    CHECK_EQ_INT(gb.pending, 0);
    CHECK_EQ_INT(gb.bytes, (uint64_t)(4 * 60 * f.row_bytes));
    CHECK_EQ_INT(verify(&f, b, plane, &(stn_span){2, 62, 4, 8}, 7, "group b"), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &ga, &sa), 0);
    CHECK_EQ_INT(ga.pending, 0);
    CHECK_EQ_INT(verify(&f, a, plane, &(stn_span){2, 62, 0, 4}, 7, "group a"), 0);
    /* each request's bytes go to the stats it was submitted with, whoever reaped it */
    CHECK_EQ_INT(sa.bytes_read, (uint64_t)(4 * 60 * f.row_bytes));
    CHECK_EQ_INT(sb.bytes_read, (uint64_t)(4 * 60 * f.row_bytes));
    CHECK_EQ_INT(ga.bytes, sa.bytes_read);

    /* wait_all; and destroy with requests still in flight completes them */
    memset(a, SENTINEL, whole * 4);
    stn_aio_group gc = STN_AIO_GROUP_INIT;
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 64, 0, 4}, a, whole, &gc, NULL), 0);
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), 0);
    CHECK_EQ_INT(gc.pending, 0);
    CHECK_EQ_INT(stn_aio_in_flight(q), 0);
    CHECK_EQ_INT(verify(&f, a, whole, &(stn_span){0, 64, 0, 4}, 7, "wait_all"), 0);
    memset(a, SENTINEL, whole * 4);
    stn_aio_group_reset(&gc);
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 64, 0, 4}, a, whole, &gc, NULL), 0);
    stn_aio_destroy(q);
    CHECK_EQ_INT(gc.pending, 0);
    CHECK_EQ_INT(gc.error, 0);
    CHECK_EQ_INT(verify(&f, a, whole, &(stn_span){0, 64, 0, 4}, 7, "destroy"), 0);
    stn_free(a);
    stn_free(b);
    stn_free(w);
    stn_gridfile_close(&f);
}

/* More calls than the queue holds at once (one row each, 600 of them, three groups): the calls
 * past the limit wait for room, and every row lands where it belongs. */
static void test_many_calls(const char *dir, size_t align) {
    stn_aio *q = NULL;
    CHECK_EQ_INT(stn_aio_create(&q, 2, 0), 0);
    if (!q)
        return;
    stn_gridfile f;
    size_t whole;
    char *w = new_grid(dir, "many.grid", 100, 6, align, 5, &f, &whole), *r = new_buf(whole, f.nz);
    stn_stats st = {0};
    stn_aio_group g[3] = {STN_AIO_GROUP_INIT, STN_AIO_GROUP_INIT, STN_AIO_GROUP_INIT};
    for (int64_t z = 0; z < f.nz; z++)
        for (int64_t y = 0; y < f.ny; y++)
            CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){y, y + 1, z, z + 1},
                                       w + z * whole + y * f.row_bytes, 0, &g[(z * f.ny + y) % 3], &st),
                         0);
    CHECK(stn_aio_in_flight(q) <= 2);
    CHECK_EQ_INT(stn_aio_wait_all(q, &st), 0);
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(g[i].pending, 0);
    CHECK_EQ_INT(st.bytes_written, (uint64_t)f.file_bytes);
    memset(r, SENTINEL, whole * (size_t)f.nz);
    for (int64_t z = f.nz - 1; z >= 0; z--)
        for (int64_t y = f.ny - 1; y >= 0; y--)
            CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){y, y + 1, z, z + 1}, r + z * whole + y * f.row_bytes,
                                      0, &g[0], &st),
                         0);
    CHECK_EQ_INT(stn_aio_wait(q, &g[0], &st), 0);
    CHECK_EQ_INT(verify(&f, r, whole, &(stn_span){0, f.ny, 0, f.nz}, 5, "many calls"), 0);
    stn_aio_destroy(q);
    stn_free(w);
    stn_free(r);
    stn_gridfile_close(&f);
}

/* ------------------------------------------------------------------ errors */

static void test_bad_requests(const char *dir, size_t align, stn_aio *q) {
    stn_gridfile f;
    char path[600];
    snprintf(path, sizeof path, "%s/bad.grid", dir);
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 37, 5, 4, 8, align, STN_GRIDFILE_CREATE), 0);
    size_t whole = (size_t)(f.ny * f.row_bytes);
    char *b = new_buf(whole, f.nz);
    stn_aio_group g = STN_AIO_GROUP_INIT;
    stn_stats st = {0};
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 6, 0, 1}, b, whole, &g, &st), -EINVAL); /* y1 > ny */
    CHECK_HAS(stn_errmsg(), path);
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 5, 3, 5}, b, whole, &g, &st), -EINVAL); /* z1 > nz */
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){3, 2, 0, 1}, b, whole, &g, &st), -EINVAL); /* y0 > y1 */
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 5, 0, 1}, b + 8, whole, &g, &st),
                 -EINVAL); /* misaligned */
    CHECK_HAS(stn_errmsg(), "aligned");
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 5, 0, 2}, b, whole + 8, &g, &st), -EINVAL); /* stride */
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, 5, 0, 2}, b, (size_t)f.row_bytes, &g, &st),
                 -EINVAL);                                                             /* too small */
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){2, 2, 0, 4}, b, whole, &g, &st), 0);  /* empty */
    CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){0, 5, 1, 1}, b, whole, &g, &st), 0); /* empty */
    CHECK_EQ_INT(g.pending, 0);
    CHECK_EQ_INT(stn_aio_queued(q) + stn_aio_in_flight(q), 0);
    CHECK_EQ_INT(st.bytes_read + st.bytes_written, 0);
    stn_free(b);
    stn_gridfile_close(&f);
}

static void test_short_file(const char *dir, size_t align, stn_aio *q) {
    stn_gridfile f;
    char path[600];
    snprintf(path, sizeof path, "%s/short.grid", dir);
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 37, 5, 4, 8, align, STN_GRIDFILE_CREATE), 0);
    size_t whole = (size_t)(f.ny * f.row_bytes);
    int64_t full = f.file_bytes, rb = f.row_bytes;
    char *b = new_buf(whole, f.nz);
    fill(&f, b, whole, 0, f.ny, 0, f.nz, 3);
    stn_aio_group g = STN_AIO_GROUP_INIT;
    CHECK_EQ_INT(stn_aio_write(q, &f, &(stn_span){0, f.ny, 0, f.nz}, b, whole, &g, NULL), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, NULL), 0);
    stn_gridfile_close(&f);

    /* opening an existing file that is too short for the grid: names the file and both sizes */
    char num[64];
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 37, 5, 6, 8, align, 0), -EINVAL);
    CHECK_HAS(stn_errmsg(), path);
    snprintf(num, sizeof num, "%lld bytes", (long long)full);
    CHECK_HAS(stn_errmsg(), num);
    snprintf(num, sizeof num, "%lld bytes", (long long)(6 * 5 * rb));
    CHECK_HAS(stn_errmsg(), num);
    CHECK(f.path == NULL);
    stn_gridfile_close(&f);
    CHECK(t_exists(path)); /* a failed open of an existing file leaves it alone */

    /* the file shrinks under us (aligned): the read moves what is there, then fails, counting
     * exactly the bytes moved */
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 37, 5, 4, 8, align, 0), 0);
    CHECK_EQ_INT(f.file_bytes, full);
    int64_t cut = full - 3 * rb;
    CHECK(ftruncate(f.fd, cut) == 0);
    stn_stats st = {0};
    stn_aio_group_reset(&g);
    memset(b, SENTINEL, whole * 4);
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, f.ny, 0, f.nz}, b, whole, &g, &st), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), -EIO);
    CHECK_HAS(stn_errmsg(), path);
    CHECK_HAS(stn_errmsg(), "short read");
    snprintf(num, sizeof num, "the file is %lld bytes", (long long)cut);
    CHECK_HAS(stn_errmsg(), num);
    snprintf(num, sizeof num, "%lld", (long long)full);
    CHECK_HAS(stn_errmsg(), num);
    CHECK_EQ_INT(g.error, -EIO);
    CHECK_EQ_INT(g.pending, 0);
    CHECK_EQ_INT(st.bytes_read, (uint64_t)cut);
    CHECK_EQ_INT(g.bytes, (uint64_t)cut);
    /* the queue reports it once more through wait_all, then forgets it */
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), -EIO);
    CHECK_HAS(stn_errmsg(), path);
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), 0);

    /* unaligned end: reading the last plane alone */
    int64_t cut2 = full - 2 * rb - 100;
    CHECK(ftruncate(f.fd, cut2) == 0);
    memset(&st, 0, sizeof st);
    stn_aio_group_reset(&g);
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, f.ny, 3, 4}, b, whole, &g, &st), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), -EIO);
    CHECK_HAS(stn_errmsg(), path);
    CHECK_HAS(stn_errmsg(), "plane 3, row ");
    snprintf(num, sizeof num, "the file is %lld bytes", (long long)cut2);
    CHECK_HAS(stn_errmsg(), num);
    CHECK_EQ_INT(st.bytes_read, (uint64_t)(cut2 - 3 * 5 * rb));
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), -EIO);
    stn_gridfile_close(&f);
    stn_free(b);
}

static void test_open_errors(const char *dir, size_t align, int statx_align) {
    stn_gridfile f;
    const char *missing = "/nonexistent-stn-dir-4711/sub/u.grid";
    CHECK_EQ_INT(stn_gridfile_open(&f, missing, 37, 5, 4, 8, align, STN_GRIDFILE_CREATE), -ENOENT);
    CHECK_HAS(stn_errmsg(), missing);
    CHECK(f.path == NULL && f.fd == -1);
    stn_gridfile_close(&f);
    CHECK_EQ_INT(stn_gridfile_open(&f, missing, 37, 5, 4, 8, align, 0), -ENOENT);
    CHECK_HAS(stn_errmsg(), missing);

    char path[600];
    snprintf(path, sizeof path, "%s/odd.grid", dir);
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 37, 5, 4, 8, 3000, STN_GRIDFILE_CREATE), -EINVAL);
    CHECK_HAS(stn_errmsg(), "power of two");
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 0, 5, 4, 8, align, STN_GRIDFILE_CREATE), -EINVAL);
    CHECK_EQ_INT(stn_gridfile_open(&f, path, INT64_MAX / 2, INT64_MAX / 2, 4, 8, align, STN_GRIDFILE_CREATE),
                 -EINVAL);
    CHECK_EQ_INT(stn_gridfile_open(&f, dir, 37, 5, 4, 8, align, 0), -EISDIR); /* a directory */
    CHECK_HAS(stn_errmsg(), dir);
    if (expect_direct && statx_align && align >= 1024) { /* rows aligned less than O_DIRECT needs */
        int rc = stn_gridfile_open(&f, path, 37, 5, 4, 8, align / 2, STN_GRIDFILE_CREATE);
        CHECK_EQ_INT(rc, -EINVAL);
        CHECK_HAS(stn_errmsg(), "O_DIRECT needs");
        if (rc == 0)
            stn_gridfile_close(&f);
    }

    size_t a;
    char src[256];
    CHECK_EQ_INT(stn_dio_alignment("/nonexistent-stn-dir-4711", &a, src, sizeof src), -ENOENT);
    CHECK_HAS(stn_errmsg(), "/nonexistent-stn-dir-4711");
    uint64_t fr;
    CHECK_EQ_INT(stn_statvfs_free("/nonexistent-stn-dir-4711", &fr), -ENOENT);
    CHECK_HAS(stn_errmsg(), "/nonexistent-stn-dir-4711");

    /* sizing fails (a file size limit here; ENOSPC takes the same path): the message has the
     * numbers and the half-made file is gone */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 65536;
    signal(SIGXFSZ, SIG_IGN);
    snprintf(path, sizeof path, "%s/toolarge.grid", dir);
    if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
        int rc = stn_gridfile_open(&f, path, 512, 64, 4, 8, align, STN_GRIDFILE_CREATE); /* 1 MiB */
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK_EQ_INT(rc, -EFBIG);
        CHECK_HAS(stn_errmsg(), path);
        CHECK_HAS(stn_errmsg(), "1048576 bytes");
        CHECK(!t_exists(path));
        if (rc == 0)
            stn_gridfile_close(&f);
    }
    signal(SIGXFSZ, SIG_DFL);

    stn_aio *q = NULL;
    CHECK_EQ_INT(stn_aio_create(&q, 0, 0), -EINVAL);
    CHECK(q == NULL);
    stn_aio_destroy(NULL);
}

/* ------------------------------------------------------------------ throughput (not asserted) */

static void smoke_throughput(const char *dir, size_t align) {
    stn_aio *q = NULL;
    CHECK_EQ_INT(stn_aio_create(&q, STN_AIO_DEFAULT_DEPTH, 0), 0);
    if (!q)
        return;
    stn_gridfile f;
    char path[600];
    snprintf(path, sizeof path, "%s/big.grid", dir);
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 4096, 256, 8, 8, align, STN_GRIDFILE_CREATE), 0); /* 64 MiB */
    size_t n = (size_t)f.file_bytes;
    char *b = stn_alloc(n, 4096);
    for (size_t k = 0; k < n; k += 8)
        memcpy(b + k, &k, 8);
    stn_stats st = {0};
    stn_aio_group g = STN_AIO_GROUP_INIT;
    double t0 = stn_now();
    CHECK_EQ_INT(
        stn_aio_write(q, &f, &(stn_span){0, f.ny, 0, f.nz}, b, (size_t)(f.ny * f.row_bytes), &g, &st), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
    CHECK_EQ_INT(stn_gridfile_sync(&f), 0);
    double tw = stn_now() - t0;
    memset(b, 0, n);
    stn_aio_group_reset(&g);
    t0 = stn_now();
    /* all planes merged: max_request pieces, up to the queue depth in flight */
    CHECK_EQ_INT(stn_aio_read(q, &f, &(stn_span){0, f.ny, 0, f.nz}, b, (size_t)(f.ny * f.row_bytes), &g, &st),
                 0);
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
    double tr = stn_now() - t0;
    int ok = 1;
    for (size_t k = 0; k < n && ok; k += 4096 + 8) {
        size_t v, at = k & ~(size_t)7;
        memcpy(&v, b + at, 8);
        ok = v == at;
    }
    CHECK(ok);
    CHECK_EQ_INT(st.bytes_written, n);
    CHECK_EQ_INT(st.bytes_read, n);
    printf(
        "throughput (O_DIRECT %d, not asserted): write+fdatasync %.0f MiB/s, read %.0f MiB/s, wait %.3f s\n",
        f.direct, (double)n / 1048576.0 / tw, (double)n / 1048576.0 / tr, st.seconds[STN_PHASE_WAIT]);
    stn_free(b);
    stn_gridfile_close(&f);
    stn_aio_destroy(q);
}

/* ------------------------------------------------------------------ */

static void shapes(const char *dir, size_t align, int flags, stn_aio *q, const char *label) {
    char name[64];
    static const int64_t shp[][4] = {
        {37, 5, 4, 8},  /* nx * esz = 296: padded */
        {1, 7, 3, 8},   /* nx = 1 */
        {37, 1, 5, 8},  /* ny = 1: every plane is one row */
        {100, 9, 2, 4}, /* f32 */
        {64, 6, 3, 8},  /* 512 bytes: no padding where align is 512 */
        {37, 4, 1, 8},  /* nz = 1 (2d) */
        {300, 11, 7, 8},
    };
    for (size_t k = 0; k < sizeof shp / sizeof shp[0]; k++) {
        snprintf(name, sizeof name, "%s-%zu.grid", label, k);
        roundtrip(dir, name, shp[k], align, flags, q, (int)k + 1);
    }
}

int main(void) {
    const char *dir = t_mkdir_disk("stn_gridio"); /* (a real file system; /tmp is often tmpfs) */

    int od = dir_accepts_odirect(dir);
    if (od == 0) {
        printf("SKIP: the file system of %s refuses O_DIRECT\n", dir);
        return 77;
    }
    expect_direct = od == 1;

    size_t align = 0;
    char src[512];
    CHECK_EQ_INT(stn_dio_alignment(dir, &align, src, sizeof src), 0);
    printf("O_DIRECT alignment in %s: %zu (%s)\n", dir, align, src);
    CHECK(align >= 512 && align <= 65536 && (align & (align - 1)) == 0);
    CHECK_EQ_INT(stn_grid_row_bytes(37, 8, 512), 512);
    CHECK_EQ_INT(stn_grid_row_bytes(64, 8, 512), 512);
    CHECK_EQ_INT(stn_grid_row_bytes(65, 8, 512), 1024);
    CHECK_EQ_INT(stn_grid_row_bytes(1, 4, 4096), 4096);
    CHECK_EQ_INT(stn_grid_row_bytes(0, 8, 512), -1);
    CHECK_EQ_INT(stn_grid_row_bytes(37, 8, 1000), -1);
    uint64_t fr = 0;
    CHECK_EQ_INT(stn_statvfs_free(dir, &fr), 0);
    CHECK(fr > 0);

    stn_aio *q = NULL;
    int rc = stn_aio_create(&q, 8, 4096); /* small requests: the shapes' spans split */
    if (rc) {
        fprintf(stderr, "%s\n", stn_errmsg());
        return 1;
    }
    shapes(dir, align, 0, q, "direct");
    /* rows padded to more than the minimum (e.g. the physical block size) work the same */
    roundtrip(dir, "wide.grid", (const int64_t[4]){37, 5, 4, 8}, align * 8, 0, q, 11);
    /* the buffered path (what a file system that refuses O_DIRECT gets) */
    shapes(dir, align, STN_GRIDFILE_BUFFERED, q, "buffered");
    test_bad_requests(dir, align, q);
    test_short_file(dir, align, q);
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), 0);
    stn_aio_destroy(q);
    test_deep_queue(dir, align);
    test_many_calls(dir, align);
    test_open_errors(dir, align, strstr(src, "statx") != NULL);

    /* tmpfs: O_DIRECT is refused before Linux 6.6 (then the fallback must work) and accepted
     * since; either way f->direct says what happened and the data round-trips */
    struct statfs sfs;
    if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC && access("/dev/shm", W_OK) == 0) {
        char shm[64] = "/dev/shm/stn_gridio_XXXXXX";
        if (mkdtemp(shm)) {
            size_t sa = 0;
            CHECK_EQ_INT(stn_dio_alignment(shm, &sa, src, sizeof src), 0);
            printf("tmpfs: alignment %zu (%s); O_DIRECT %s\n", sa, src,
                   dir_accepts_odirect(shm) == 1 ? "accepted (Linux >= 6.6)" : "refused: buffered fallback");
            /* tmpfs has no device and takes O_DIRECT at any alignment, or refuses it: either
             * way its rows need no padding (issue 16: a 160-wide grid took 3x its bytes) */
            CHECK(sa == 8);
            stn_aio *qs = NULL;
            CHECK_EQ_INT(stn_aio_create(&qs, 16, 0), 0);
            if (qs) {
                shapes(shm, sa, 0, qs, "tmpfs");
                stn_aio_destroy(qs);
            }
            char p[128];
            for (int k = 0; k < 16; k++) {
                snprintf(p, sizeof p, "%s/tmpfs-%d.grid", shm, k);
                unlink(p);
            }
            if (rmdir(shm) != 0)
                fprintf(stderr, "cannot remove %s: %s\n", shm, strerror(errno));
        }
    } else {
        printf("no writable tmpfs at /dev/shm: tmpfs case not run\n");
    }

    smoke_throughput(dir, align);
    return t_result();
}
