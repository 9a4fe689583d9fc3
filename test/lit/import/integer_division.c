// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// C divides integers (the loop indices, integer literals) with truncation; a stencil divides its numbers exactly: refused, not lifted as a division of numbers.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i - 1][j] + a[i + 1][j] + a[i][j - 1] * ((i + 1) / 2) + a[i][j + 1];
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}integer_division.c:8:70: error: '(i + 1) / 2' divides two integers, which C truncates; a stencil divides its numbers exactly: write one of them as a floating literal (2.0)
// CHECK-NEXT:                b[i][j] = a[i - 1][j] + a[i + 1][j] + a[i][j - 1] * ((i + 1) / 2) + a[i][j + 1];
// CHECK-NEXT:                                                                     ^~~~~~~~~~~
// CHECK-NOT:{{.+}}
