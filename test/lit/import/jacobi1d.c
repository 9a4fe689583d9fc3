// RUN: stencilc import %s --function kernel_jacobi_1d -- -I %S/Inputs -DPB_RESTRICT | FileCheck %s
// A 1d stencil (PolyBench's jacobi-1d in its macros): one loop per nest, a 1d grid.
#include "pbstyle.h"
#define N 40
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
static void kernel_jacobi_1d(int tsteps, int n, DATA_TYPE POLYBENCH_1D(A, N, n), DATA_TYPE POLYBENCH_1D(B, N, n))
{
    int t, i;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
        for (i = 1; i < _PB_N - 1; i++)
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    }
}
// CHECK: grid 1d f64;
// CHECK-NEXT: state B;
// CHECK-NEXT: state A;
// CHECK-NEXT: B' = 0.33333 * (A[-1] + A + A[1]);
// CHECK-NEXT: A' = 0.33333 * (B'[-1] + B' + B'[1]);
