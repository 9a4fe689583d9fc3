/* jacobi2d.c: a 2d Jacobi sweep with a pointer swap, the way a C simulation keeps two buffers.
 * `stencilc import examples/import/jacobi2d.c` lifts it (docs/import.md).
 *
 *   ./jacobi2d NX NY STEPS INIT.raw OUT.raw  -- writes the initial and final grid (NY x NX doubles) */
#include <stdio.h>
#include <stdlib.h>

static const double w = 0.2; /* becomes a param */

static void run(int nx, int ny, int steps, double (*restrict u)[nx], double (*restrict v)[nx])
{
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++)
                v[y][x] = w * (u[y][x] + u[y][x - 1] + u[y][x + 1] + u[y + 1][x] + u[y - 1][x]);
        double (*tmp)[nx] = u;
        u = v;
        v = tmp;
    }
    if (steps % 2) /* the caller's first buffer holds the result */
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                v[y][x] = u[y][x];
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s NX NY STEPS INIT.raw OUT.raw\n", argv[0]);
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), steps = atoi(argv[3]);
    double (*u)[nx] = malloc(sizeof(double[ny][nx])), (*v)[nx] = malloc(sizeof(double[ny][nx]));
    if (!u || !v)
        return 1;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
            u[y][x] = v[y][x] = (double)((x * 7 + y * 13) % 17) / 16.0;
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(u, sizeof(double), (size_t)nx * ny, f) != (size_t)nx * ny || fclose(f))
        return 1;
    run(nx, ny, steps, u, v);
    f = fopen(argv[5], "wb");
    if (!f || fwrite(u, sizeof(double), (size_t)nx * ny, f) != (size_t)nx * ny || fclose(f))
        return 1;
    free(u);
    free(v);
    return 0;
}
