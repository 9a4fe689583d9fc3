// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// C tests a number as a condition (not zero); a stencil tests comparisons.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i][j] && a[i - 1][j] > 0.0 ? a[i + 1][j] : a[i][j - 1] + a[i][j + 1];
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}number_as_condition.c:8:27: error: 'a[i][j]' is a number where C tests a condition (not zero); a stencil tests comparisons: write it as a comparison (!= 0)
// CHECK-NEXT:                b[i][j] = a[i][j] && a[i - 1][j] > 0.0 ? a[i + 1][j] : a[i][j - 1] + a[i][j + 1];
// CHECK-NEXT:                          ^~~~~~~
// CHECK-NOT:{{.+}}
