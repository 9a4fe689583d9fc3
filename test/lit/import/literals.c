// RUN: stencilc import %s | FileCheck %s
// C literals .stn does not read as C does are lifted as their values: 010 is octal (8), 0x10 hex (16), 1. and
// 1.e1 have no digit after the point, 0x1p-2 is a hex float, 1.f a float; the others as written.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 010 * a[i - 1][j] + 1. * a[i + 1][j] + 0x10 * a[i][j - 1] + 1.e1 * a[i][j + 1] + 0x1p-2
                          + 2e1 + .5 + 1.f + 0.1 + 7 + 0;
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK: a' = 8 * a[0,-1] + 1.0 * a[0,1] + 16 * a[-1,0] + 10.0 * a[1,0] + 0.25 + 2e1 + .5 + 1.0 + 0.1 + 7 + 0;
