// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// An index read from another array: the points are not constant offsets.
void step(int n, int steps, const int *restrict idx, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i][idx[j]];
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}indirect.c:8:32: error: an indirect index into 'a': the subscript reads another array, so the points the stencil reads are not constant offsets
// CHECK-NEXT:                b[i][j] = a[i][idx[j]];
// CHECK-NEXT:                               ^~~~~~
