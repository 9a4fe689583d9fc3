// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A Gauss-Seidel sweep reads the array it writes at offsets: some reads see new values.
void sweep(int n, int steps, double (*restrict a)[n]) {
    for (int t = 0; t < steps; t++)
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                a[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
}
// CHECK:{{.*}}gauss_seidel.c:8:35: error: the nest reads 'a' at an offset from the element it writes: that value may be old or new (a Gauss-Seidel sweep), which a stencil's step cannot express; only the written element itself may be read (its old value)
// CHECK-NEXT:                a[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
// CHECK-NEXT:                                  ^~~~~~~~~~~
// CHECK:{{.*}}gauss_seidel.c:8:17: note: written here
