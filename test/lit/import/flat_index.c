// RUN: stencilc import %s --function step | FileCheck %s
// RUN: not stencilc import %s --function padded 2>&1 | FileCheck --check-prefix=PAD %s
// One flat subscript per array, strides the grid's: the offsets come out of the products.
void step(int n, int steps, double *restrict a, double *restrict b) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * n + j] = 0.25 * (a[i * n + j - 1] + a[i * n + j + 1] + a[(i - 1) * n + j] + a[(i + 1) * n + j]);
        double *tmp = a;
        a = b;
        b = tmp;
    }
}
// Rows of n + 2 elements where the loops run over n: not the grid's stride.
void padded(int n, int steps, double *restrict a, double *restrict b) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i * (n + 2) + j] = 0.5 * (a[i * (n + 2) + j - 1] + a[i * (n + 2) + j + 1]);
        double *tmp = a;
        a = b;
        b = tmp;
    }
}
// CHECK: state a;
// CHECK-NEXT: a' = 0.25 * (a[-1,0] + a[1,0] + a[0,-1] + a[0,1]);
// PAD: flat_index.c:21:19: error: the flat subscript of 'b' does not step by n along 'i', the grid's stride there (its rows and planes must be those the loops run over)
