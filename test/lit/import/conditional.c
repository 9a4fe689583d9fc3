// RUN: stencilc import %s | FileCheck %s
// RUN: mkdir -p %t && stencilc import %s -o %t/conditional.stn && stencilc %t/conditional.stn --emit=ir | FileCheck --check-prefix=IR %s
// Conditionals lift as they are written: '?:' (nested, parenthesised), comparisons, &&, ||, ! as its
// condition, the loop indices as the coordinates, and the float math functions as the .stn ones (fminf
// is fmin, C's, not the comparison min; fabsf is abs).
#include <math.h>
static const float k = 0.25f;
void step(int n, int steps, float (*restrict a)[n], float (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = ((a[i][j] > 0.0f && !(j < 3)) || i == 5 ? k * a[i][j - 1] : a[i][j + 1] < 0.0f ? 1.0f
                           : fminf(fabsf(a[i - 1][j]), floorf(a[i + 1][j] * j))) + atan2f(a[i][j], (float)i);
        float (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK: stencil conditional {
// CHECK-NEXT:   grid 2d f32;
// CHECK-NEXT:   param k = 0.25;
// CHECK-NEXT:   state a;
// CHECK-NEXT:   a' = ((a > 0.0 && !(x < 3)) || y == 5 ? k * a[-1,0] : a[1,0] < 0.0 ? 1.0 : fmin(abs(a[0,-1]), floor(a[0,1] * x))) + atan2(a, y);
// IR: update a' = (a[0,0] > 0.0 && !(x < 3.0) || y == 5.0 ? k * a[-1,0] : a[1,0] < 0.0 ? 1.0 : fmin(abs(a[0,-1]), floor(a[0,1] * x))) + atan2(a[0,0], y)
