/* upwind2d.c: a tracer carried across a 2d grid by a flow whose direction depends on the position,
 * first-order upwind plus a limited correction: conditionals (?:, comparisons, &&, !), math functions
 * (fmin, fabs, copysign) and the loop indices in the arithmetic.  `stencilc import examples/import/upwind2d.c`
 * lifts it (docs/import.md): the loop indices become the coordinates x and y.
 *
 *   ./upwind2d NX NY STEPS INIT.raw OUT.raw  -- writes the initial and final grid (NY x NX doubles) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double c = 0.3;  /* the Courant number; becomes a param */
static const double h = 0.05; /* the flow turns where x * h crosses 1 */

static void run(int nx, int ny, int steps, double (*restrict q)[nx], double (*restrict r)[nx])
{
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++)
                r[y][x] = q[y][x] - c * (x * h < 1.0 ? q[y][x] - q[y][x - 1] : q[y][x] - q[y][x + 1])
                          - 0.5 * c * (!(y > 3) || (q[y + 1][x] - q[y][x]) * (q[y][x] - q[y - 1][x]) <= 0.0
                                           ? 0.0
                                           : copysign(fmin(fabs(q[y + 1][x] - q[y][x]), fabs(q[y][x] - q[y - 1][x])),
                                                      q[y + 1][x] - q[y - 1][x]));
        double (*tmp)[nx] = q;
        q = r;
        r = tmp;
    }
    if (steps % 2) /* the caller's first buffer holds the result */
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                r[y][x] = q[y][x];
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s NX NY STEPS INIT.raw OUT.raw\n", argv[0]);
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), steps = atoi(argv[3]);
    double (*q)[nx] = malloc(sizeof(double[ny][nx])), (*r)[nx] = malloc(sizeof(double[ny][nx]));
    if (!q || !r)
        return 1;
    for (int y = 0; y < ny; y++) /* a square of 1 in a field of 0, with a ramp */
        for (int x = 0; x < nx; x++)
            q[y][x] = r[y][x] = (x > nx / 4 && x < nx / 2 && y > ny / 4 && y < ny / 2 ? 1.0 : 0.0) + 0.01 * (x % 7);
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(q, sizeof(double), (size_t)nx * ny, f) != (size_t)nx * ny || fclose(f))
        return 1;
    run(nx, ny, steps, q, r);
    f = fopen(argv[5], "wb");
    if (!f || fwrite(q, sizeof(double), (size_t)nx * ny, f) != (size_t)nx * ny || fclose(f))
        return 1;
    free(q);
    free(r);
    return 0;
}
