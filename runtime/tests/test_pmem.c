/* test_pmem.c -- io/pmem.c (--tier pmem, docs/design/022): a grid file opened with STN_GRIDFILE_PMEM is
 * mapped with libpmem, the queue's reads and writes of it are copies done before they return and counted
 * exactly as libaio's completions, a write lands at the file's offsets (read back through the file
 * descriptor), sync persists or msyncs the mapping, a resumed open maps the file's old content, close
 * unmaps; not persistent memory here (tmpfs or ext4). */
#include "test_util.h"

#include "io/stn_gridio.h"

#include <stdint.h>

int main(void) {
    const char *dir = t_mkdir();
    const char *path = t_path("u.grid");
    stn_gridfile f;
    int64_t nx = 5, ny = 7, nz = 3; /* rows of 40 bytes padded to 64 */
    CHECK_EQ_INT(stn_gridfile_open(&f, path, nx, ny, nz, 8, 64, STN_GRIDFILE_CREATE | STN_GRIDFILE_PMEM), 0);
    CHECK(f.map != NULL && f.map_len >= (size_t)f.file_bytes && !f.direct);
    CHECK_EQ_INT(f.row_bytes, 64);
    CHECK_EQ_INT(f.is_pmem, 0);

    stn_aio *q = NULL;
    CHECK_EQ_INT(stn_aio_create(&q, 4, 0), 0);
    static double buf[3][7][8] __attribute__((aligned(64))), back[3][7][8] __attribute__((aligned(64)));
    for (int z = 0; z < 3; z++)
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 8; x++)
                buf[z][y][x] = 100.0 * z + 10.0 * y + x;
    stn_stats st = {0};
    stn_aio_group g = STN_AIO_GROUP_INIT;
    stn_span rows = {2, 6, 1, 3}; /* rows 2..5 of planes 1 and 2: 2 x 4 x 64 bytes */
    CHECK_EQ_INT(stn_aio_write(q, &f, &rows, &buf[1][2][0], sizeof buf[0], &g, &st), 0);
    CHECK_EQ_INT(g.pending, 0); /* done before it returned */
    CHECK_EQ_INT(stn_aio_wait(q, &g, &st), 0);
    CHECK_EQ_INT(g.bytes, 2 * 4 * 64);
    CHECK_EQ_INT(st.bytes_written, 2 * 4 * 64);
    CHECK_EQ_INT(stn_gridfile_sync(&f), 0);
    /* the file holds plane 2, row 3 at (2 * 7 + 3) * 64 */
    double got[5];
    CHECK_EQ_INT(pread(f.fd, got, sizeof got, (2 * 7 + 3) * 64), (long)sizeof got);
    CHECK(got[0] == 230.0 && got[4] == 234.0);

    stn_aio_group r = STN_AIO_GROUP_INIT;
    CHECK_EQ_INT(stn_aio_read(q, &f, &rows, &back[1][2][0], sizeof back[0], &r, &st), 0);
    CHECK_EQ_INT(stn_aio_wait(q, &r, &st), 0);
    CHECK_EQ_INT(r.bytes, 2 * 4 * 64);
    CHECK_EQ_INT(st.bytes_read, 2 * 4 * 64);
    CHECK(back[2][5][4] == 254.0 && back[1][2][0] == 120.0 && back[0][0][0] == 0.0 && back[1][1][0] == 0.0);
    CHECK_EQ_INT(stn_aio_wait_all(q, &st), 0);
    stn_gridfile_close(&f);
    CHECK(f.map == NULL && f.path == NULL);

    /* opened again without CREATE (a --resume): the same bytes mapped */
    CHECK_EQ_INT(stn_gridfile_open(&f, path, nx, ny, nz, 8, 64, STN_GRIDFILE_PMEM), 0);
    memset(back, 0, sizeof back);
    stn_aio_group r2 = STN_AIO_GROUP_INIT;
    CHECK_EQ_INT(stn_aio_read(q, &f, &rows, &back[1][2][0], sizeof back[0], &r2, &st), 0);
    CHECK(back[2][3][1] == 231.0);
    stn_gridfile_close(&f);

    /* a file that cannot be mapped (a directory's name) is refused by open first, naming it */
    CHECK(stn_gridfile_open(&f, dir, nx, ny, nz, 8, 64, STN_GRIDFILE_PMEM) < 0);
    CHECK_HAS(stn_errmsg(), dir);
    stn_aio_destroy(q);
    return t_result();
}
