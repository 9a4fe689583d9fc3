// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A comparison is the number 0 or 1 in C; a stencil takes it only as a condition (of ?:, under && || !).
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i - 1][j] + a[i + 1][j] + (a[i][j - 1] > 0.0) * a[i][j + 1];
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}condition_as_number.c:8:56: error: 'a[i][j - 1] > 0.0' is a condition, which C counts as the number 0 or 1; a stencil takes conditions only as the condition of 'c ? a : b' (and under &&, || and !): write COND ? 1.0 : 0.0
// CHECK-NEXT:                b[i][j] = a[i - 1][j] + a[i + 1][j] + (a[i][j - 1] > 0.0) * a[i][j + 1];
// CHECK-NEXT:                                                       ^~~~~~~~~~~~~~~~~
// CHECK-NOT:{{.+}}
