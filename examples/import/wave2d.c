/* wave2d.c: the 2d wave equation with three rotating buffers (previous, current, next), a
 * two-level scheme.  `stencilc import examples/import/wave2d.c` lifts it into a field of two
 * levels (docs/import.md).
 *
 *   ./wave2d N STEPS INIT.raw PREV.raw OUT.raw  -- writes the two initial levels and the final one */
#include <stdio.h>
#include <stdlib.h>

static const double c2 = 0.09; /* (c dt / h)^2 */

static void run(int n, int steps, double (*restrict prev)[n], double (*restrict cur)[n], double (*restrict next)[n],
                double (*out)[n])
{
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                next[i][j] = 2.0 * cur[i][j] - prev[i][j] +
                             c2 * (cur[i + 1][j] + cur[i - 1][j] + cur[i][j + 1] + cur[i][j - 1] - 4.0 * cur[i][j]);
        double (*tmp)[n] = prev;
        prev = cur;
        cur = next;
        next = tmp;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            out[i][j] = cur[i][j];
}

static int dump(const char *path, const void *p, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, bytes, f) == bytes;
    return f && fclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s N STEPS INIT.raw PREV.raw OUT.raw\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), steps = atoi(argv[2]);
    size_t bytes = sizeof(double[n][n]);
    double (*a)[n] = malloc(bytes), (*b)[n] = malloc(bytes), (*c)[n] = malloc(bytes), (*o)[n] = malloc(bytes);
    if (!a || !b || !c || !o)
        return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double r2 = (i - n / 2) * (i - n / 2) + (j - n / 3) * (j - n / 3);
            b[i][j] = r2 < 9 ? 1.0 - r2 / 9 : 0.0; /* current */
            a[i][j] = 0.9 * b[i][j];                /* previous */
            c[i][j] = 0.0;
        }
    if (!dump(argv[3], b, bytes) || !dump(argv[4], a, bytes))
        return 1;
    run(n, steps, a, b, c, o);
    if (!dump(argv[5], o, bytes))
        return 1;
    free(a), free(b), free(c), free(o);
    return 0;
}
