#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
/* handwritten_fdtd2d.c -- examples/fdtd2d.stn by hand, as PolyBench writes fdtd-2d: per step one
 * OpenMP sweep for ey and ex, then one for hz from the new ey and ex (i = y, j = x), interior
 * [1, n-1), boundaries kept.  The baseline of the sub-step kernels (docs/performance.md).
 *
 * Usage: handwritten_fdtd2d NX NY STEPS   prints seconds, cells/s and a checksum value. */
int main(int argc, char **argv) {
    long nx = atol(argv[1]), ny = atol(argv[2]), T = atol(argv[3]);
    double *ex = malloc(nx * ny * 8), *ey = malloc(nx * ny * 8), *hz = malloc(nx * ny * 8);
    double *ex2 = malloc(nx * ny * 8), *ey2 = malloc(nx * ny * 8), *hz2 = malloc(nx * ny * 8);
#pragma omp parallel for
    for (long i = 0; i < ny; i++)
        for (long j = 0; j < nx; j++) {
            ex[i * nx + j] = ex2[i * nx + j] = (double)i * (j + 1) / ny;
            ey[i * nx + j] = ey2[i * nx + j] = (double)i * (j + 2) / nx;
            hz[i * nx + j] = hz2[i * nx + j] = (double)i * (j + 3) / ny;
        }
    double t0 = omp_get_wtime();
    for (long t = 0; t < T; t++) {
#pragma omp parallel
        {
#pragma omp for
            for (long i = 1; i < ny - 1; i++)
                for (long j = 1; j < nx - 1; j++) {
                    ey2[i * nx + j] = ey[i * nx + j] - 0.5 * (hz[i * nx + j] - hz[(i - 1) * nx + j]);
                    ex2[i * nx + j] = ex[i * nx + j] - 0.5 * (hz[i * nx + j] - hz[i * nx + j - 1]);
                }
#pragma omp for
            for (long i = 1; i < ny - 1; i++)
                for (long j = 1; j < nx - 1; j++)
                    hz2[i * nx + j] = hz[i * nx + j] - 0.7 * (ex2[i * nx + j + 1] - ex2[i * nx + j] +
                                                              ey2[(i + 1) * nx + j] - ey2[i * nx + j]);
        }
        double *s;
        s = ex;
        ex = ex2;
        ex2 = s;
        s = ey;
        ey = ey2;
        ey2 = s;
        s = hz;
        hz = hz2;
        hz2 = s;
    }
    double dt = omp_get_wtime() - t0;
    printf("hand: %.3f s, %.3e cells/s, hz[mid]=%.17g\n", dt, (double)(nx - 2) * (ny - 2) * T / dt,
           hz[(ny / 2) * nx + nx / 2]);
    return 0;
}
