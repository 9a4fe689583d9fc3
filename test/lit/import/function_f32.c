// RUN: stencilc import %s --function smooth | FileCheck %s
// RUN: not stencilc import %s 2>&1 | FileCheck --check-prefix=NOMARK %s
// Without '#pragma stencilc', --function lifts every perfect 2d/3d nest of the function inside a
// loop; floats give an f32 grid, and a const float a param.
static const float k = 0.25f;
void smooth(int n, int steps, float (*restrict a)[n], float (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = k * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        float (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK: stencil function_f32 {
// CHECK-NEXT:   grid 2d f32;
// CHECK-NEXT:   param k = 0.25;
// CHECK-NEXT:   state a;
// CHECK-NEXT:   a' = k * (a[0,-1] + a[0,1] + a[-1,0] + a[1,0]);
// NOMARK: error: no stencil loop nest found in this file; mark each loop nest with '#pragma stencilc', or name the function with --function
