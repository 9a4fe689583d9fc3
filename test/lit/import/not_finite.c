// RUN: not stencilc import %s --function big 2>&1 | FileCheck --check-prefix=LIT %s
// RUN: not stencilc import %s --function nan 2>&1 | FileCheck --check-prefix=CONST %s
// A literal that overflows to infinity in C (1e400), or a const whose value is not finite, is refused at
// its place (the fuzzer found it written into the .stn, which the compiler refused: an internal error).
static const double q = 0.0 / 0.0;
void big(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 1e400 * (a[i][j - 1] + a[i][j + 1] + a[i - 1][j] + a[i + 1][j]);
}
void nan(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = q * (a[i][j - 1] + a[i][j + 1] + a[i - 1][j] + a[i + 1][j]);
}
// LIT: not_finite.c:10:27: error: '1e400' is not a finite number in C (inf: it overflows its type); a stencil's coefficients are finite
// CONST: not_finite.c:16:27: error: the constant 'q' is nan in C, not a finite number; a stencil's coefficients are finite
