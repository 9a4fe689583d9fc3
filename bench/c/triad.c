/* triad.c -- a STREAM-style triad, a[i] = b[i] + s * c[i], on all OpenMP threads, and a copy,
 * a[i] = b[i] (the stream pattern of a Jacobi stencil step: one array read, one written).  Each
 * repeat copies first, then the triad overwrites `a`, so the check at the end sees the triad.
 *
 *     triad N_DOUBLES REPEATS
 *
 * The three arrays are first touched by the threads that use them (static schedule), so on a
 * NUMA machine each thread's part lives near it.  Prints one JSON line: the best and the median
 * time of REPEATS triads, and the bandwidth at the best time counted as STREAM does (24 bytes per
 * element: two reads and one write; the write-allocate read of `a` is not counted), and the same
 * for the copy (16 bytes per element).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: triad N_DOUBLES REPEATS\n");
        return 2;
    }
    long n = atol(argv[1]);
    int reps = atoi(argv[2]);
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "triad: N_DOUBLES and REPEATS must be positive\n");
        return 2;
    }
    double *a = NULL, *b = NULL, *c = NULL;
    if (posix_memalign((void **)&a, 4096, (size_t)n * 8) || posix_memalign((void **)&b, 4096, (size_t)n * 8) ||
        posix_memalign((void **)&c, 4096, (size_t)n * 8)) {
        fprintf(stderr, "triad: cannot allocate 3 x %ld doubles\n", n);
        return 1;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0 + (double)(i & 7);
        c[i] = 2.0;
    }
    double *t = malloc(sizeof(double) * (size_t)reps), *tc = malloc(sizeof(double) * (size_t)reps), s = 3.0;
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i];
        tc[r] = omp_get_wtime() - t0;
        t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        t[r] = omp_get_wtime() - t0;
    }
    double check = 0.0; /* keeps the stores alive and proves the arithmetic */
    for (long i = 0; i < n; i += 4096)
        check += a[i] - (b[i] + s * c[i]);
    qsort(t, (size_t)reps, sizeof *t, cmp);
    qsort(tc, (size_t)reps, sizeof *tc, cmp);
    printf("{\"threads\": %d, \"n\": %ld, \"repeats\": %d, \"best_seconds\": %.9f, \"median_seconds\": %.9f, "
           "\"bytes_per_second\": %.6e, \"copy_best_seconds\": %.9f, \"copy_bytes_per_second\": %.6e, "
           "\"check\": %g}\n",
           omp_get_max_threads(), n, reps, t[0], t[reps / 2], 24.0 * (double)n / t[0], tc[0], 16.0 * (double)n / tc[0],
           check);
    free(t);
    free(tc);
    free(a);
    free(b);
    free(c);
    return check == 0.0 ? 0 : 1;
}
