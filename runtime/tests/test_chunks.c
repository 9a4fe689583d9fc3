/* Grid files chunked along y (io/gridio.c, io/aio.c, io/pmem.c; docs/design/023): on random chunk tables,
 * every row of every plane at its own offset, together every byte of the file once; one chunk is the plain
 * layout's formula; spans written and read through the queue land where the table says (checked with
 * pread), come back whole through other spans, move exactly their bytes, and a whole-chunk-wide span of
 * many planes is moved in requests of many planes (the request-size histogram).  Bad tables are refused.
 * A file in parts along y (io/gridparts.c, --dir a,b): each part a file of its slab's rows alone, the slab
 * edges always chunk edges, every row read and written where the whole's table puts it less its part's
 * first byte. */
#include "test_util.h"

#include "io/stn_gridio.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}
static int64_t pick(int64_t lo, int64_t hi) {
    return lo + (int64_t)(next() % (uint64_t)(hi - lo));
} /* [lo, hi) */

/* A random table of n inner edges in (0, ny), n < ny. */
static int random_edges(int64_t ny, int64_t *e) {
    int n = (int)pick(0, ny < 12 ? ny : 12);
    char *used = calloc((size_t)ny, 1);
    for (int k = 0; k < n;) {
        int64_t y = pick(1, ny);
        if (!used[y])
            used[y] = 1, k++;
    }
    int m = 0;
    for (int64_t y = 1; y < ny; y++)
        if (used[y])
            e[m++] = y;
    free(used);
    return m;
}

/* Every (z, y) at a distinct row of the file, all rows covered: every byte once. */
static void check_offsets(stn_gridfile *f) {
    int64_t rows = f->ny * f->nz;
    char *seen = calloc((size_t)rows, 1);
    for (int64_t z = 0; z < f->nz; z++)
        for (int64_t y = 0; y < f->ny; y++) {
            uint64_t off = stn_gridfile_offset(f, z, y);
            CHECK(off % (uint64_t)f->row_bytes == 0 &&
                  off + (uint64_t)f->row_bytes <= (uint64_t)f->file_bytes);
            int64_t r = (int64_t)(off / (uint64_t)f->row_bytes);
            if (r >= 0 && r < rows)
                seen[r]++;
            if (f->nchunks == 1)
                CHECK_EQ_INT(off, (uint64_t)(z * f->ny + y) * (uint64_t)f->row_bytes);
            int64_t lo, hi;
            stn_gridfile_chunk(f, y, &lo, &hi);
            CHECK(lo <= y && y < hi);
            if (y + 1 < hi) /* rows of a chunk follow each other in a plane */
                CHECK_EQ_INT(stn_gridfile_offset(f, z, y + 1), off + (uint64_t)f->row_bytes);
            if (y == hi - 1 && z + 1 < f->nz) /* and the chunk's next plane follows its last row */
                CHECK_EQ_INT(stn_gridfile_offset(f, z + 1, lo), off + (uint64_t)f->row_bytes);
        }
    for (int64_t r = 0; r < rows; r++)
        CHECK_EQ_INT(seen[r], 1);
    free(seen);
}

static double val(int64_t y, int64_t z, int64_t x) { return (double)(z * 100000 + y * 100 + x) + 0.5; }

/* Write the grid through random spans (random buffers' plane strides), check every row with pread at the
 * offset the table gives, read it back through other random spans, count the bytes. */
static void roundtrip(stn_gridfile *f, stn_aio *q) {
    int64_t nx = f->nx, rb = f->row_bytes;
    stn_stats st;
    memset(&st, 0, sizeof st);
    uint64_t want = 0;
    for (int64_t z0 = 0; z0 < f->nz;) {
        int64_t z1 = pick(z0 + 1, f->nz + 1);
        for (int64_t y0 = 0; y0 < f->ny;) {
            int64_t y1 = pick(y0 + 1, f->ny + 1);
            size_t plane = (size_t)((y1 - y0) + pick(0, 3)) * (size_t)rb;
            char *buf = stn_alloc(plane * (size_t)(z1 - z0), 4096);
            for (int64_t z = z0; z < z1; z++)
                for (int64_t y = y0; y < y1; y++)
                    for (int64_t x = 0; x < nx; x++)
                        ((double *)(buf + (size_t)(z - z0) * plane + (size_t)((y - y0) * rb)))[x] =
                            val(y, z, x);
            stn_aio_group g = STN_AIO_GROUP_INIT;
            CHECK_EQ_INT(stn_aio_write(q, f, &(stn_span){y0, y1, z0, z1}, buf, plane, &g, &st), 0);
            CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
            CHECK_EQ_INT(g.bytes, (uint64_t)((y1 - y0) * (z1 - z0) * rb));
            want += (uint64_t)((y1 - y0) * (z1 - z0) * rb);
            stn_free(buf);
            y0 = y1;
        }
        z0 = z1;
    }
    CHECK_EQ_INT(st.bytes_written, want);
    if (!f->map) { /* the bytes where the table puts them */
        double *row = stn_alloc((size_t)rb, 4096);
        int bad = 0;
        for (int64_t z = 0; z < f->nz; z++)
            for (int64_t y = 0; y < f->ny; y++) {
                uint64_t base; /* (a file in parts: in its part's file, from the part's first byte) */
                stn_gridfile *pf = stn_gridfile_place(f, y, &base);
                CHECK(pread(pf->fd, row, (size_t)rb, (off_t)(stn_gridfile_offset(f, z, y) - base)) ==
                      (ssize_t)rb);
                for (int64_t x = 0; x < nx; x++)
                    bad += row[x] != val(y, z, x);
            }
        CHECK_EQ_INT(bad, 0);
        stn_free(row);
    }
    int bad = 0;
    for (int k = 0; k < 6; k++) { /* random boxes back */
        int64_t y0 = pick(0, f->ny), y1 = pick(y0 + 1, f->ny + 1), z0 = pick(0, f->nz),
                z1 = pick(z0 + 1, f->nz + 1);
        size_t plane = (size_t)((y1 - y0) + pick(0, 3)) * (size_t)rb;
        char *buf = stn_alloc(plane * (size_t)(z1 - z0), 4096);
        stn_aio_group g = STN_AIO_GROUP_INIT;
        CHECK_EQ_INT(stn_aio_read(q, f, &(stn_span){y0, y1, z0, z1}, buf, plane, &g, &st), 0);
        CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
        CHECK_EQ_INT(g.bytes, (uint64_t)((y1 - y0) * (z1 - z0) * rb));
        for (int64_t z = z0; z < z1; z++)
            for (int64_t y = y0; y < y1; y++)
                for (int64_t x = 0; x < nx; x++)
                    bad += ((double *)(buf + (size_t)(z - z0) * plane + (size_t)((y - y0) * rb)))[x] !=
                           val(y, z, x);
        stn_free(buf);
    }
    CHECK_EQ_INT(bad, 0);
}

/* A whole-chunk-wide span of 6 planes from a buffer with gaps between planes: requests of several planes
 * when chunked, one a plane when plain. */
static void gathered(stn_gridfile *f, stn_aio *q) {
    int64_t e[1] = {4}, rb = f->row_bytes;
    size_t plane = (size_t)(4 + 3) * (size_t)rb;
    char *buf = stn_alloc(plane * 6, 4096);
    memset(buf, 0, plane * 6);
    for (int chunked = 0; chunked < 2; chunked++) {
        CHECK_EQ_INT(stn_gridfile_set_chunks(f, e, chunked), 0);
        stn_req_sizes h;
        memset(&h, 0, sizeof h);
        stn_aio_count_sizes(q, &h);
        stn_aio_group g = STN_AIO_GROUP_INIT;
        CHECK_EQ_INT(stn_aio_write(q, f, &(stn_span){0, 4, 0, 6}, buf, plane, &g, NULL), 0);
        CHECK_EQ_INT(stn_aio_wait(q, &g, NULL), 0);
        stn_aio_count_sizes(q, NULL);
        uint64_t n = 0, bytes = 0;
        for (int k = 0; k < STN_REQ_BUCKETS; k++)
            n += h.count[1][k], bytes += h.bytes[1][k];
        CHECK_EQ_INT(bytes, (uint64_t)(4 * 6 * rb));
        CHECK_EQ_INT(n, chunked ? 1 : 6);
    }
    stn_free(buf);
}

/* n slabs of ny rows in parts under dir/a and dir/b in turn: sizes, places, the slab edges kept as chunk
 * edges under any table, the bytes through the queue. */
static void parts(const char *dir, stn_aio *q, size_t align, int k) {
    int64_t nx = pick(1, 300), ny = pick(2, 40), nz = pick(1, 7), slab[5] = {0};
    int n = (int)pick(2, ny < 4 ? ny + 1 : 5);
    for (int j = 1; j < n; j++) /* distinct inner edges, in order */
        slab[j] = pick(slab[j - 1] + 1, ny - (n - 1 - j));
    slab[n] = ny;
    char paths[4][600];
    const char *pp[4];
    for (int j = 0; j < n; j++)
        snprintf(paths[j], sizeof paths[j], "%s/%c/p%d.%d", dir, j % 2 ? 'b' : 'a', k, j), pp[j] = paths[j];
    stn_gridfile f;
    CHECK_EQ_INT(stn_gridfile_open_parts(&f, pp, slab, n, nx, ny, nz, 8, align, STN_GRIDFILE_CREATE), 0);
    CHECK_EQ_INT(f.nparts, n);
    CHECK_EQ_INT(f.nchunks, n); /* the plain layout in parts: one chunk a slab */
    for (int j = 0; j < n; j++) {
        struct stat sb;
        CHECK(stat(paths[j], &sb) == 0);
        CHECK_EQ_INT((int64_t)sb.st_size, (slab[j + 1] - slab[j]) * nz * f.row_bytes);
    }
    int64_t e[64];
    for (int round = 0; round < 2; round++) {
        int m = round ? random_edges(ny, e) : 0;
        CHECK_EQ_INT(stn_gridfile_set_chunks(&f, e, m), 0);
        for (int j = 1; j < n; j++) { /* every slab edge is a chunk edge */
            int64_t lo, hi;
            stn_gridfile_chunk(&f, slab[j], &lo, &hi);
            CHECK_EQ_INT(lo, slab[j]);
        }
        for (int j = 0; j < m; j++) { /* and so is every edge asked for */
            int64_t lo, hi;
            stn_gridfile_chunk(&f, e[j], &lo, &hi);
            CHECK_EQ_INT(lo, e[j]);
        }
        check_offsets(&f);
        for (int64_t z = 0; z < nz; z++)
            for (int64_t y = 0; y < ny; y++) { /* in the part of its slab, inside that file */
                uint64_t base;
                stn_gridfile *pf = stn_gridfile_place(&f, y, &base);
                int j = (int)(pf - f.part);
                CHECK(j >= 0 && j < n && slab[j] <= y && y < slab[j + 1]);
                CHECK(stn_gridfile_offset(&f, z, y) - base + (uint64_t)f.row_bytes <=
                      (uint64_t)pf->file_bytes);
            }
        roundtrip(&f, q);
    }
    CHECK_EQ_INT(stn_gridfile_sync(&f), 0);
    stn_gridfile_unlink(&f);
    stn_gridfile_close(&f);
    for (int j = 0; j < n; j++)
        CHECK(access(paths[j], F_OK) != 0);
}

int main(void) {
    /* under $TMPDIR or /var/tmp: a real file system (O_DIRECT where it takes it; /tmp is often tmpfs) */
    const char *base = getenv("TMPDIR");
    snprintf(t_dir, sizeof t_dir, "%s/stn_chunks_XXXXXX", base && *base ? base : "/var/tmp");
    if (!mkdtemp(t_dir))
        return perror("mkdtemp"), 1;
    atexit(t_cleanup);
    const char *dir = t_dir;
    size_t align = 0;
    CHECK_EQ_INT(stn_dio_alignment(dir, &align, NULL, 0), 0);
    stn_aio *q = NULL;
    if (stn_aio_create(&q, 8, 3 * 4096) != 0) { /* small requests: runs cut */
        fprintf(stderr, "%s\n", stn_errmsg());
        return 1;
    }
    char path[600];
    for (int k = 0; k < 24; k++) {
        int64_t nx = pick(1, 700), ny = pick(1, 40), nz = pick(1, 9);
        int flags = STN_GRIDFILE_CREATE | (k % 3 == 2 ? STN_GRIDFILE_BUFFERED : 0);
        snprintf(path, sizeof path, "%s/g%d", dir, k);
        stn_gridfile f;
        CHECK_EQ_INT(stn_gridfile_open(&f, path, nx, ny, nz, 8, align, flags), 0);
        CHECK_EQ_INT(f.nchunks, 1);
        check_offsets(&f); /* plain */
        int64_t e[64];
        int n = random_edges(ny, e);
        CHECK_EQ_INT(stn_gridfile_set_chunks(&f, e, n), 0);
        CHECK_EQ_INT(f.nchunks, n + 1);
        check_offsets(&f);
        roundtrip(&f, q);
        stn_gridfile_close(&f);
    }
    char sub[700];
    for (int j = 0; j < 2; j++) {
        snprintf(sub, sizeof sub, "%s/%c", dir, j ? 'b' : 'a');
        CHECK(mkdir(sub, 0700) == 0);
    }
    for (int k = 0; k < 12; k++)
        parts(dir, q, align, k);
    /* a slab without rows is refused */
    const char *two[2] = {"x", "y"};
    stn_gridfile g;
    CHECK_EQ_INT(stn_gridfile_open_parts(&g, two, (const int64_t[]){0, 4, 4}, 2, 8, 4, 1, 8, align, 0),
                 -EINVAL);
    CHECK_HAS(stn_errmsg(), "is empty");
    /* bad tables: edges out of order, at 0 or ny, or past it */
    snprintf(path, sizeof path, "%s/bad", dir);
    stn_gridfile f;
    CHECK_EQ_INT(stn_gridfile_open(&f, path, 64, 10, 6, 8, align, STN_GRIDFILE_CREATE), 0);
    CHECK_EQ_INT(stn_gridfile_set_chunks(&f, (const int64_t[]){3, 3}, 2), -EINVAL);
    CHECK_HAS(stn_errmsg(), "bad chunk table");
    CHECK_EQ_INT(stn_gridfile_set_chunks(&f, (const int64_t[]){0}, 1), -EINVAL);
    CHECK_EQ_INT(stn_gridfile_set_chunks(&f, (const int64_t[]){10}, 1), -EINVAL);
    CHECK_EQ_INT(f.nchunks, 1);
    gathered(&f, q);
    stn_gridfile_close(&f);
    CHECK_EQ_INT(stn_aio_wait_all(q, NULL), 0);
    stn_aio_destroy(q);
    return t_result();
}
