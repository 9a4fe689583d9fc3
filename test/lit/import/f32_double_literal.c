// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A double literal in float arithmetic: C computes in double, an f32 stencil in float.
void smooth(int n, int steps, float (*restrict a)[n], float (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        float (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}f32_double_literal.c:8:27: error: '0.25' is a double: C computes this expression in double, and an f32 stencil computes in float; write 0.25f to compute in float
// CHECK-NEXT:                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
// CHECK-NEXT:                          ^~~~
