// RUN: not stencilc import %s --function step 2>&1 | FileCheck --check-prefix=ARR %s
// RUN: not stencilc import %s --function step_global 2>&1 | FileCheck --check-prefix=GLOB %s
// RUN: stencilc import %s --function step_restrict | FileCheck --check-prefix=OK %s
// Array parameters are pointers in C: 'double a[N][N]' may point into the same array as 'double b[N][N]',
// exactly as 'double (*a)[n]' may; both are refused unless restrict.  So is a pointer beside a file's array.
#define N 16
double g[N][N];
void step(int n, int steps, double a[N][N], double b[N][N]) {
    for (int t = 0; t < steps; t++)
        for (int i = 0; i < n - 1; i++)
            for (int j = 1; j < n; j++)
                b[i][j] = 0.5 * (a[i][j - 1] + a[i + 1][j]);
}
void step_global(int n, int steps, double b[N][N]) {
    for (int t = 0; t < steps; t++)
        for (int i = 0; i < n - 1; i++)
            for (int j = 1; j < n; j++)
                b[i][j] = 0.5 * (g[i][j - 1] + g[i + 1][j]);
}
void step_restrict(int n, int steps, double a[restrict N][N], double b[restrict N][N]) {
    for (int t = 0; t < steps; t++)
        for (int i = 0; i < n - 1; i++)
            for (int j = 1; j < n; j++)
                b[i][j] = 0.5 * (a[i][j - 1] + a[i + 1][j]);
}
// ARR: array_param_alias.c:12:34: error: 'a' (read) and 'b' (written) are pointers that may point into the same array: the nest would then read values it wrote, which a stencil's step cannot express; if they never overlap, declare both restrict (double (*restrict a)[...], or as a parameter double a[restrict N][...])
// ARR: array_param_alias.c:12:17: note: 'b' is written here
// GLOB: array_param_alias.c:18:34: error: 'g' (read) and 'b' (written) may be the same array: 'b' is a pointer that may point into 'g', and the nest would then read values it wrote, which a stencil's step cannot express; if it never does, declare 'b' restrict (double (*restrict b)[...], or as a parameter double b[restrict N][...])
// OK: b' = 0.5 * (a[-1,0] + a[0,1]);
