// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// A statement after the nest that is not a pointer rotation changes what the step computes.
void step(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.5 * (a[i][j - 1] + a[i][j + 1]);
        b[0][0] = 1.0;
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}step_has_more.c:9:9: error: after its nests, a time step may only rotate pointers ('tmp = a; a = b; b = tmp;'): this statement would change what the nests compute
