/* varheat2d.c: heat conduction with a coefficient that varies in space, k[y][x], read but never
 * written: an input of the lifted stencil.  `stencilc import examples/import/varheat2d.c`.
 *
 *   ./varheat2d NX NY STEPS INIT.raw K.raw OUT.raw */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double dt = 0.05;

static void run(int nx, int ny, int steps, double (*restrict u)[nx], double (*restrict un)[nx],
                double (*restrict k)[nx])
{
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++)
                un[y][x] = u[y][x] + dt * (0.5 * (k[y][x + 1] + k[y][x]) * (u[y][x + 1] - u[y][x]) -
                                           0.5 * (k[y][x] + k[y][x - 1]) * (u[y][x] - u[y][x - 1]) +
                                           0.5 * (k[y + 1][x] + k[y][x]) * (u[y + 1][x] - u[y][x]) -
                                           0.5 * (k[y][x] + k[y - 1][x]) * (u[y][x] - u[y - 1][x])) +
                           dt * 0.01 * exp(-u[y][x]);
        double (*tmp)[nx] = u;
        u = un;
        un = tmp;
    }
    if (steps % 2)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                un[y][x] = u[y][x];
}

static int dump(const char *path, const void *p, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, bytes, f) == bytes;
    return f && fclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s NX NY STEPS INIT.raw K.raw OUT.raw\n", argv[0]);
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), steps = atoi(argv[3]);
    size_t bytes = sizeof(double[ny][nx]);
    double (*u)[nx] = malloc(bytes), (*un)[nx] = malloc(bytes), (*k)[nx] = malloc(bytes);
    if (!u || !un || !k)
        return 1;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            u[y][x] = un[y][x] = (x == 0 || y == 0) ? 1.0 : 0.0;
            k[y][x] = 0.5 + 0.4 * sin(0.3 * x) * cos(0.2 * y);
        }
    if (!dump(argv[4], u, bytes) || !dump(argv[5], k, bytes))
        return 1;
    run(nx, ny, steps, u, un, k);
    if (!dump(argv[6], u, bytes))
        return 1;
    free(u), free(un), free(k);
    return 0;
}
