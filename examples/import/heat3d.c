/* heat3d.c: PolyBench's heat-3d (a 3d heat equation, two sweeps a time step: B from A, then A
 * from the new B), as a C program of its own.  `stencilc import examples/import/heat3d.c`
 * lifts its time loop into a .stn file (docs/import.md).
 *
 *   ./heat3d N TSTEPS INIT.raw OUT.raw  -- writes A's initial and final values (N^3 doubles) */
#include <stdio.h>
#include <stdlib.h>

static void kernel(int n, int tsteps, double A[restrict n][n][n], double B[restrict n][n][n])
{
    for (int t = 1; t <= tsteps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k]) +
                                 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k]) +
                                 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k]) +
                                 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k]) +
                                 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
    }
}

static int dump(const char *path, const void *p, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, bytes, f) == bytes;
    ok = f && fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "heat3d: cannot write %s\n", path);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s N TSTEPS INIT.raw OUT.raw\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), tsteps = atoi(argv[2]);
    double (*A)[n][n] = malloc(sizeof(double[n][n][n])), (*B)[n][n] = malloc(sizeof(double[n][n][n]));
    if (!A || !B)
        return 1;
    for (int i = 0; i < n; i++) /* PolyBench's init_array */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                A[i][j][k] = B[i][j][k] = (double)(i + j + (n - k)) * 10 / (n);
    if (!dump(argv[3], A, sizeof(double[n][n][n])))
        return 1;
    kernel(n, tsteps, A, B);
    if (!dump(argv[4], A, sizeof(double[n][n][n])))
        return 1;
    free(A);
    free(B);
    return 0;
}
