// RUN: not stencilc import %s 2>&1 | FileCheck %s
// RUN: not stencilc import %s --function nothere 2>&1 | FileCheck --check-prefix=FN %s
void step(int n, double *a) { a[0] = n; }
// CHECK: no_pragma.c:1:1: error: no stencil loop nest found in this file; mark each loop nest with '#pragma stencilc', or name the function with --function
// FN: no_pragma.c:1:1: error: no function 'nothere' is defined here (functions: step)
