// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A coefficient that is a variable: it must be a literal or a const variable (a param).
void step(int n, int steps, double c, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = c * (a[i][j - 1] + a[i][j + 1] + a[i - 1][j] + a[i + 1][j]);
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}not_constant.c:8:27: error: 'c' is not a constant: a stencil's coefficients are literals or const variables with constant values (they become params)
// CHECK-NEXT:                b[i][j] = c * (a[i][j - 1] + a[i][j + 1] + a[i - 1][j] + a[i + 1][j]);
// CHECK-NEXT:                          ^
