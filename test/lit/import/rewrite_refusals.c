// RUN: not stencilc import %s --rewrite %s 2>&1 | FileCheck --check-prefix=SAME %s
// RUN: not stencilc import %s --rewrite %t.c 2>&1 | FileCheck --check-prefix=STEPS %s
// The rewrite is a copy (never the input file), and it needs the time loop's step count.
void run(int n, int steps, double (*restrict a)[n], double (*restrict b)[n]) {
    for (int t = 0; t != steps; t++) {
#pragma stencilc
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
        double (*tmp)[n] = a;
        a = b;
        b = tmp;
    }
}
// SAME: rewrite_refusals.c: error: --rewrite {{.*}}rewrite_refusals.c is the input file: the rewrite is a copy, it never changes the C file it reads
// STEPS: rewrite_refusals.c:5:5: error: the time loop must read 'for (t = LO; t < HI; t++)' (or '<=') for --rewrite to count its steps
