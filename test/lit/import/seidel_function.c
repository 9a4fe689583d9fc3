// RUN: not stencilc import %s --function kernel_seidel_2d 2>&1 | FileCheck --strict-whitespace %s
// RUN: not stencilc import %s --function single_step 2>&1 | FileCheck --check-prefix=NOLOOP %s
// A Gauss-Seidel sweep written as PolyBench writes it: the time loop holds the 2d nest alone, without
// braces, so the three loops are one perfect nest.  The refusal names the real reason (the sweep reads
// the cells it writes), not a missing time loop; a nest outside any loop is refused for that.
void kernel_seidel_2d(int tsteps, int n, double A[restrict 20][20]) {
    int t, i, j;
    for (t = 0; t <= tsteps - 1; t++)
        for (i = 1; i <= n - 2; i++)
            for (j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
                           A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}
void single_step(int n, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            b[i][j] = 0.5 * (a[i][j - 1] + a[i][j + 1]);
}
// CHECK:{{.*}}seidel_function.c:11:28: error: the nest reads 'A' at an offset from the element it writes: that value may be old or new (a Gauss-Seidel sweep), which a stencil's step cannot express; only the written element itself may be read (its old value)
// CHECK-NEXT:                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
// CHECK-NEXT:                           ^~~~~~~~~~~~~~~
// CHECK:{{.*}}seidel_function.c:11:17: note: written here
// NOLOOP: seidel_function.c:15:5: error: this stencil loop nest is not inside a time loop (a 'for' around it)
