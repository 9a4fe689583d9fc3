/*
 * handwritten_heat3d.c -- the baseline a user would write by hand: the 7-point heat update
 * of examples/heat3d.stn as one OpenMP loop nest over a dense grid, same expression order,
 * same initial state, dirichlet boundary (the halo keeps its initial values).
 *
 *   handwritten_heat3d NX NY NZ STEPS OUT.npy|- [INIT.npy]
 * prints: seconds=<time loop> cells_per_second=<nx*ny*nz*steps/seconds>
 * INIT.npy (<f8, C order, shape (NZ, NY, NX)) replaces the Gaussian initial state.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int write_npy(const char *path, const double *a, int64_t nx, int64_t ny, int64_t nz)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%lld, %lld, %lld), }",
                     (long long)nz, (long long)ny, (long long)nx);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64;
    unsigned short hlen = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fwrite(&hlen, 2, 1, f);
    fwrite(dict, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    size_t cells = (size_t)(nx * ny * nz);
    int ok = fwrite(a, sizeof(double), cells, f) == cells;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The data of a version 1 .npy of `cells` doubles (the header's shape is the caller's word). */
static int read_npy(const char *path, double *a, size_t cells)
{
    FILE *f = fopen(path, "rb");
    unsigned char h[10];
    if (!f)
        return -1;
    int ok = fread(h, 1, 10, f) == 10 && memcmp(h, "\x93NUMPY\x01", 7) == 0 &&
             fseek(f, 10 + (long)(h[8] | h[9] << 8), SEEK_SET) == 0 && fread(a, sizeof(double), cells, f) == cells;
    fclose(f);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s NX NY NZ STEPS OUT.npy|- [INIT.npy]\n", argv[0]);
        return 2;
    }
    const int64_t nx = atoll(argv[1]), ny = atoll(argv[2]), nz = atoll(argv[3]), steps = atoll(argv[4]);
    const size_t cells = (size_t)(nx * ny * nz);
    const double alpha = 0.1;
    double *u = aligned_alloc(64, (cells * sizeof(double) + 63) / 64 * 64);
    double *v = aligned_alloc(64, (cells * sizeof(double) + 63) / 64 * 64);
    if (!u || !v)
        return 1;
    const double hx = (double)nx / 2.0, hy = (double)ny / 2.0, hz = (double)nz / 2.0;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++)
            for (int64_t x = 0; x < nx; x++) {
                const double dx = (double)x - hx, dy = (double)y - hy, dz = (double)z - hz;
                const size_t c = (size_t)((z * ny + y) * nx + x);
                u[c] = v[c] = exp(-(dx * dx + dy * dy + dz * dz) / 50.0);
            }
    if (argc == 7 && read_npy(argv[6], u, cells) != 0) {
        fprintf(stderr, "cannot read %zu doubles from %s (a version 1 .npy, <f8, C order)\n", cells, argv[6]);
        return 1;
    }
    memcpy(v, u, cells * sizeof(double));
    const int64_t sy = nx, sz = nx * ny;
    const double t0 = now();
    for (int64_t t = 0; t < steps; t++) {
#pragma omp parallel for collapse(2) schedule(static)
        for (int64_t z = 1; z < nz - 1; z++)
            for (int64_t y = 1; y < ny - 1; y++) {
                const double *restrict a = u + z * sz + y * sy;
                double *restrict b = v + z * sz + y * sy;
                for (int64_t x = 1; x < nx - 1; x++)
                    b[x] = a[x] + alpha * (a[x - 1] + a[x + 1] + a[x - sy] + a[x + sy] + a[x - sz] + a[x + sz] -
                                           6.0 * a[x]);
            }
        double *tmp = u;
        u = v;
        v = tmp;
    }
    const double secs = now() - t0;
    printf("seconds=%.6f cells_per_second=%.6e\n", secs, secs > 0 ? (double)cells * steps / secs : 0.0);
    if (strcmp(argv[5], "-") != 0 && write_npy(argv[5], u, nx, ny, nz) != 0) {
        fprintf(stderr, "cannot write %s\n", argv[5]);
        return 1;
    }
    free(u);
    free(v);
    return 0;
}
