// RUN: not stencilc import %s 2>&1 | FileCheck --strict-whitespace %s
// Two pointers that may point into the same array: without restrict the nest may read what it wrote.
void step(int n, int steps, double (*a)[n], double (*b)[n]) {
    for (int t = 0; t < steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.5 * (a[i][j - 1] + a[i][j + 1]);
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// CHECK:{{.*}}may_alias.c:8:34: error: 'a' (read) and 'b' (written) are pointers that may point into the same array: the nest would then read values it wrote, which a stencil's step cannot express; if they never overlap, declare both restrict (double (*restrict a)[...], or as a parameter double a[restrict N][...])
// CHECK:{{.*}}may_alias.c:8:17: note: 'b' is written here
