// RUN: stencilc import %s --function kernel_fdtd_2d -- -I %S/Inputs -DPB_RESTRICT | FileCheck %s
// RUN: not stencilc import %s --function kernel_fdtd_2d_source -- -I %S/Inputs -DPB_RESTRICT 2>&1 | FileCheck --check-prefix=SRC %s
// In-place point-wise updates, as FDTD codes write them: 'ey[i][j] = ey[i][j] - ...' reads the element it
// writes, before writing it: the old value, a Jacobi read (ey), never a Gauss-Seidel one.  The later nest reads
// the new ey and ex (sub-steps).  A source row set from a time series each step (PolyBench's
// 'ey[0][j] = _fict_[t]') is a loop that is not a stencil nest: refused with that reason.
#include "pbstyle.h"
#define _PB_NX POLYBENCH_LOOP_BOUND(NX, nx)
#define _PB_NY POLYBENCH_LOOP_BOUND(NY, ny)
#define NX 20
#define NY 30
static void kernel_fdtd_2d(int tmax, int nx, int ny, DATA_TYPE POLYBENCH_2D(ex, NX, NY, nx, ny),
                           DATA_TYPE POLYBENCH_2D(ey, NX, NY, nx, ny), DATA_TYPE POLYBENCH_2D(hz, NX, NY, nx, ny))
{
    int t, i, j;
    for (t = 0; t < tmax; t++) {
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j - 1]);
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}
static void kernel_fdtd_2d_source(int tmax, int nx, int ny, DATA_TYPE POLYBENCH_2D(ey, NX, NY, nx, ny),
                                  DATA_TYPE POLYBENCH_2D(hz, NX, NY, nx, ny), DATA_TYPE POLYBENCH_1D(fict, 50, tmax))
{
    int t, i, j;
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < _PB_NY; j++)
            ey[0][j] = fict[t];
        for (i = 1; i < _PB_NX - 1; i++)
            for (j = 1; j < _PB_NY - 1; j++)
                ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
    }
}
// CHECK: state ey;
// CHECK-NEXT: state ex;
// CHECK-NEXT: state hz;
// CHECK-NEXT: ey' = ey - 0.5 * (hz - hz[0,-1]);
// CHECK-NEXT: ex' = ex - 0.5 * (hz - hz[-1,0]);
// CHECK-NEXT: hz' = hz - 0.7 * (ex'[1,0] - ex' + ey'[0,1] - ey');
// SRC: fdtd_in_place.c:33:9: error: a loop in the time step that is not a stencil nest: it writes 'ey[0][j]', not the element of its own loop indices (a perfect nest of one loop per subscript around one assignment W[i][j] = EXPR); stencilc import lifts a step made of stencil nests alone (then pointer rotations)
