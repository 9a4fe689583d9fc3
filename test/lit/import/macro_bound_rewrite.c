// RUN: mkdir -p %t && stencilc import %s --function kernel_jacobi_2d -o %t/j.stn --rewrite %t/r.c -- -I %S/Inputs -DPB_RESTRICT
// RUN: FileCheck --check-prefix=RW %s < %t/r.c
// RUN: FileCheck --check-prefix=CONST %s < %t/j.stn
// RUN: stencilc import %s --function kernel_jacobi_2d -o %t/k.stn --rewrite %t/k.c -- -I %S/Inputs -DPB_RESTRICT -DPB_CONST_BOUNDS
// RUN: FileCheck --check-prefix=FIXED %s < %t/k.c
// (The checks are anchored at the line's start: the rewrite copies these comments.)
// Loop bounds spelled through a function-like macro (PolyBench's _PB_N is POLYBENCH_LOOP_BOUND(N, n)):
// the rewrite prints the bound Clang expanded, never the empty text of a macro argument.
#include "pbstyle.h"
#define N 30
#define TSTEPS 7
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)

static void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                             DATA_TYPE POLYBENCH_2D(B, N, N, n, n))
{
    int t, i, j;
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
}
// RW: {{^ +}}stn_cfg_.size[0] = (int64_t)(n);
// RW-NEXT: {{^ +}}stn_cfg_.size[1] = (int64_t)(n);
// RW-NEXT: {{^ +}}stn_cfg_.steps = (int64_t)((tsteps) - (0));
// CONST: B' = 0.2 * (A + A[-1,0] + A[1,0] + A[0,1] + A[0,-1]);
// CONST-NEXT: A' = 0.2 * (B' + B'[-1,0] + B'[1,0] + B'[0,1] + B'[0,-1]);
// FIXED: {{^ +}}stn_cfg_.size[0] = (int64_t)(30);
// FIXED-NEXT: {{^ +}}stn_cfg_.size[1] = (int64_t)(30);
// FIXED-NEXT: {{^ +}}stn_cfg_.steps = (int64_t)((7) - (0));
