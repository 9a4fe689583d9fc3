// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// Loops that leave two cells where the stencil reads one away: stencilc's boundary layer is the halo.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 2; i < n - 2; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}bounds_not_halo.c:6:9: error: the loop over 'i' (y) leaves 2 cell(s) below and 2 above its range, but the stencil reads 1 below and 1 above: stencilc's boundary layer is the stencil's halo (docs/language.md), so the loop must run from 1 to N - 1
