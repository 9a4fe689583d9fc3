// RUN: not stencilc import %s 2>&1 | FileCheck %s
// One flat subscript: the importer reads a[i][j] (a pointer to rows).
void step(int n, int steps, double *restrict a, double *restrict b) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * n + j] = 0.5 * (a[i * n + j - 1] + a[i * n + j + 1]);
        double *tmp = a;
        a = b;
        b = tmp;
    }
}
// CHECK: flat_index.c:8:17: error: 'b' is indexed by one flat subscript; stencilc import reads a[i][j][k] (declare it as a pointer to rows, e.g. double (*b)[ny][nx])
