/* pbstyle.h: a macro layer in the style of PolyBench/C's utilities/polybench.h, written for stencilc's own
 * tests (it is not PolyBench's file): array parameters declared through POLYBENCH_nD, whose extents are the
 * compile-time size or the run-time one; loop bounds through the function-like POLYBENCH_LOOP_BOUND, which
 * picks the run-time variable unless PB_CONST_BOUNDS is defined; DATA_TYPE and SCALAR_VAL for the element
 * type and its literals; an optional restrict (PB_RESTRICT) and row padding (PB_PAD).  What the importer
 * must see through: a bound that is a macro argument (empty source text), extents that are not the loops'. */
#ifndef PBSTYLE_H
#define PBSTYLE_H

#ifdef PB_C99_EXTENTS
#define PB_EXTENT(fixed, var) var
#else
#define PB_EXTENT(fixed, var) fixed
#endif

#ifdef PB_CONST_BOUNDS
#define POLYBENCH_LOOP_BOUND(fixed, var) fixed
#else
#define POLYBENCH_LOOP_BOUND(fixed, var) var
#endif

#ifdef PB_RESTRICT
#define PB_R restrict
#else
#define PB_R
#endif

#ifndef PB_PAD
#define PB_PAD 0
#endif

#define POLYBENCH_1D(name, d1, v1) name[PB_R PB_EXTENT(d1, v1) + PB_PAD]
#define POLYBENCH_2D(name, d1, d2, v1, v2) name[PB_R PB_EXTENT(d1, v1) + PB_PAD][PB_EXTENT(d2, v2) + PB_PAD]
#define POLYBENCH_3D(name, d1, d2, d3, v1, v2, v3) \
    name[PB_R PB_EXTENT(d1, v1) + PB_PAD][PB_EXTENT(d2, v2) + PB_PAD][PB_EXTENT(d3, v3) + PB_PAD]

#ifdef PB_FLOAT
#define DATA_TYPE float
#define SCALAR_VAL(v) v##f
#else
#define DATA_TYPE double
#define SCALAR_VAL(v) v
#endif

#endif
