// The stencil is named after the output file: a name no stencil may have is the user's error (exit 1), not
// an internal one (a .stn the compiler refuses).
// RUN: mkdir -p %t
// RUN: not stencilc import %examples/import/jacobi2d.c -o %t/c.stn 2>&1 | FileCheck --check-prefix=C %s
// RUN: not stencilc import %examples/import/jacobi2d.c -o %t/grid.stn 2>&1 | FileCheck --check-prefix=KW %s
// RUN: not stencilc import %examples/import/jacobi2d.c -o %t/math.stn 2>&1 | FileCheck --check-prefix=H %s
// RUN: stencilc import %examples/import/jacobi2d.c -o %t/x.stn && FileCheck --check-prefix=X %s < %t/x.stn
// C: stencilc: error: the stencil is named after the output file '{{.*}}c.stn', and its name 'c' gives Fortran names (c_open, ...) that the Fortran module uses for its C interfaces; name the output otherwise (-o NAME.stn)
// C-NOT: internal
// KW: stencilc: error: the stencil is named after the output file '{{.*}}grid.stn', and its name 'grid' is a keyword of the language; name the output otherwise (-o NAME.stn)
// H: its name 'math' would name the generated header math.h, which hides the system's <math.h>; name the output
// X: stencil x {
