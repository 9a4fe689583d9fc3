// RUN: stencilc import %examples/import/heat3d.c | FileCheck --check-prefix=HEAT %s
// RUN: stencilc import %examples/import/wave2d.c | FileCheck --check-prefix=WAVE %s
// RUN: mkdir -p %t && stencilc import %examples/import/varheat2d.c -o %t/varheat2d.stn
// RUN: FileCheck --check-prefix=VAR %s < %t/varheat2d.stn
// The lifted .stn of the examples: sub-steps from two nests, two levels from three rotating
// pointers, an input from an array only read, params from const globals.
// HEAT: stencil heat3d {
// HEAT-NEXT:   grid 3d f64;
// HEAT-NEXT:   state B;
// HEAT-NEXT:   state A;
// HEAT-NEXT:   B' = 0.125 * (A[0,0,1] - 2.0 * A + A[0,0,-1]) + 0.125 * (A[0,1,0] - 2.0 * A + A[0,-1,0]) + 0.125 * (A[1,0,0] - 2.0 * A + A[-1,0,0]) + A;
// HEAT-NEXT:   A' = 0.125 * (B'[0,0,1] - 2.0 * B' + B'[0,0,-1]) + 0.125 * (B'[0,1,0] - 2.0 * B' + B'[0,-1,0]) + 0.125 * (B'[1,0,0] - 2.0 * B' + B'[-1,0,0]) + B';
// HEAT-NEXT:   boundary dirichlet;
// WAVE: param c2 = 0.09;
// WAVE-NEXT: state cur levels 2;
// WAVE-NEXT: cur' = 2.0 * cur - cur.prev + c2 * (cur[0,1] + cur[0,-1] + cur[1,0] + cur[-1,0] - 4.0 * cur);
// VAR: stencil varheat2d {
// VAR: param dt = 0.05;
// VAR-NEXT: input k;
// VAR-NEXT: state u;
