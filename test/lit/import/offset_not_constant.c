// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A subscript scaled by 2: the stencil's points must be constant offsets.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i][2 * j];
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}offset_not_constant.c:8:32: error: subscript 2 of 'a' is not 'j' plus a constant: the stencil's points must be constant offsets from the element it computes
// CHECK-NEXT:                b[i][j] = a[i][2 * j];
// CHECK-NEXT:                               ^~~~~
