/* handwritten_fdtd2d.c -- PolyBench's fdtd-2d kernel (kernel_fdtd_2d) with OpenMP: per step the
 * source row, one sweep for ey, one for ex, one for hz from the new ey and ex, in place, on
 * arrays of nx x ny (i then j).  The baseline of examples/fdtd2d.stn (docs/performance.md), which
 * runs on a grid of (ny + 2) x (nx + 2) whose interior is these arrays.
 *
 * Usage: handwritten_fdtd2d NX NY STEPS   prints "seconds S cells/s R hz[mid]=V". */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s NX NY STEPS\n", argv[0]);
        return 2;
    }
    long nx = atol(argv[1]), ny = atol(argv[2]), tmax = atol(argv[3]);
    double *ex = malloc((size_t)(nx * ny) * sizeof *ex), *ey = malloc((size_t)(nx * ny) * sizeof *ey);
    double *hz = malloc((size_t)(nx * ny) * sizeof *hz), *fict = malloc((size_t)(tmax + 1) * sizeof *fict);
    if (!ex || !ey || !hz || !fict)
        return 1;
    for (long t = 0; t < tmax; t++)
        fict[t] = (double)t;
#pragma omp parallel for
    for (long i = 0; i < nx; i++)
        for (long j = 0; j < ny; j++) {
            ex[i * ny + j] = ((double)i * (j + 1)) / nx;
            ey[i * ny + j] = ((double)i * (j + 2)) / ny;
            hz[i * ny + j] = ((double)i * (j + 3)) / nx;
        }
    double t0 = omp_get_wtime();
    for (long t = 0; t < tmax; t++) {
#pragma omp parallel
        {
#pragma omp for
            for (long j = 0; j < ny; j++)
                ey[j] = fict[t];
#pragma omp for
            for (long i = 1; i < nx; i++)
                for (long j = 0; j < ny; j++)
                    ey[i * ny + j] = ey[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
#pragma omp for
            for (long i = 0; i < nx; i++)
                for (long j = 1; j < ny; j++)
                    ex[i * ny + j] = ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
#pragma omp for
            for (long i = 0; i < nx - 1; i++)
                for (long j = 0; j < ny - 1; j++)
                    hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * ny + j + 1] - ex[i * ny + j] +
                                                             ey[(i + 1) * ny + j] - ey[i * ny + j]);
        }
    }
    double dt = omp_get_wtime() - t0;
    printf("seconds %.6f cells/s %.4e hz[mid]=%.17g\n", dt, (double)nx * ny * tmax / dt,
           hz[(nx / 2) * ny + ny / 2]);
    free(ex);
    free(ey);
    free(hz);
    free(fict);
    return 0;
}
