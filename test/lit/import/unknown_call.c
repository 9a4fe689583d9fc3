// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A call to a function stencilc cannot see into.
double flux(double l, double r);
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = a[i - 1][j] + a[i + 1][j] + flux(a[i][j - 1], a[i][j + 1]);
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}unknown_call.c:9:55: error: a call to 'flux', which stencilc does not know: a stencil may call acos, acosh, asin, asinh, atan, atan2, atanh, cbrt, ceil, copysign, cos, cosh, exp, exp2, expm1, fabs, floor, fmax, fmin, fmod, hypot, log, log10, log1p, log2, pow, sin, sinh, sqrt, tan, tanh, trunc (and their float versions, sqrtf, ...)
// CHECK-NEXT:                b[i][j] = a[i - 1][j] + a[i + 1][j] + flux(a[i][j - 1], a[i][j + 1]);
// CHECK-NEXT:                                                      ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
