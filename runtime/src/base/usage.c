/* usage.c -- what the generated program tells its user about its command line: --help (the options,
 * then the stencil's fields and params), a suggestion for a misspelt option, and numbers in their
 * shortest form that reads back exactly. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *stn_fmt_shortest(char *buf, size_t n, double v) {
    for (int digits = 1; digits < 17; digits++) { /* the fewest significant digits that read back as v */
        snprintf(buf, n, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return buf;
    }
    snprintf(buf, n, "%.17g", v); /* (17 always do) */
    return buf;
}

/* The edit distance of a and b (insertions, deletions, substitutions and swaps of neighbours each
 * cost 1), or more than `most` when it is: names are short, so the table is small. */
static int distance(const char *a, size_t na, const char *b, int most) {
    size_t nb = strlen(b);
    if (na > 64 || nb > 64)
        return most + 1;
    int t[66][66];
    for (size_t i = 0; i <= na; i++)
        for (size_t j = 0; j <= nb; j++) {
            if (i == 0 || j == 0) {
                t[i][j] = (int)(i + j);
                continue;
            }
            int c = t[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            c = t[i - 1][j] + 1 < c ? t[i - 1][j] + 1 : c;
            c = t[i][j - 1] + 1 < c ? t[i][j - 1] + 1 : c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && t[i - 2][j - 2] + 1 < c)
                c = t[i - 2][j - 2] + 1;
            t[i][j] = c;
        }
    return t[na][nb];
}

const char *stn_suggest(const char *typed, size_t len, const char *const *names, int count) {
    const char *best = NULL;
    int most = len <= 4 ? 1 : 2, best_d = most + 1, prefix_of = 0;
    for (int k = 0; k < count; k++) {
        int d = distance(typed, len, names[k], most);
        if (d < best_d)
            best = names[k], best_d = d;
        prefix_of += len >= 3 && strncmp(names[k], typed, len) == 0;
    }
    if (!best && prefix_of == 1) /* --plan for --plan-only, --time for --time-tiles */
        for (int k = 0; k < count; k++)
            if (strncmp(names[k], typed, len) == 0)
                best = names[k];
    return best;
}

static void usage_fields(const stn_program_desc *d, FILE *out) {
    int n = stn_dims(d);
    fprintf(out, "\nFields (.npy files of shape %s, %s):\n",
            n == 3   ? "(nz, ny, nx)"
            : n == 2 ? "(ny, nx)"
                     : "(nx,)",
            d->npy_descr);
    for (int f = 0; f < d->nfields; f++) {
        const stn_field_desc *fd = &d->fields[f];
        if (fd->kind == STN_FIELD_INPUT)
            fprintf(out, "  %-12s input (read-only)%s\n", fd->name, fd->has_init ? ", has an init" : "");
        else if (fd->level2_of)
            fprintf(out, "  %-12s the level before %s.prev (a three-level field)%s\n", fd->name,
                    d->fields[fd->level2_of - 1].name, fd->has_level2_init ? ", has an init" : "");
        else
            fprintf(out, "  %-12s state, %d level%s, %s boundary%s%s\n", fd->name, fd->levels,
                    fd->levels == 2 ? "s (NAME.prev is the previous one)" : "",
                    fd->boundary == STN_BC_NEUMANN ? "neumann"
                    : fd->boundary == STN_BC_MIXED ? "per-face"
                                                   : "dirichlet",
                    fd->has_init ? ", has an init" : "", fd->has_prev_init ? " (also of .prev)" : "");
    }
    if (d->nparams) {
        char num[32];
        fprintf(out, "\nParams:\n");
        for (int k = 0; k < d->nparams; k++)
            fprintf(out, "  %-12s default %s\n", d->params[k].name,
                    stn_fmt_shortest(num, sizeof num, d->params[k].value));
    }
    for (int s = 0; s < d->nalong; s++)
        fprintf(out, "%s  %-12s input along %c (a 1d .npy of %s, nx/ny/nz values)%s\n",
                s == 0 ? "\nInputs along one axis:\n" : "", d->alongs[s].name, "xyz"[d->alongs[s].axis],
                d -> npy_descr, d -> alongs[s].has_init ? ", has an init" : "");
    if (d->nseries) {
        fprintf(out,
                "\nSeries (--init NAME=FILE, required: a 1d .npy of %s, one value per step from t = 0, "
                "0 before it):\n",
                d->npy_descr);
        for (int s = 0; s < d->nseries; s++) {
            int hi = 0;
            fprintf(out, "  %-12s read as", d->series[s].name);
            for (int j = 0, n = 0; j < d->nterms; j++) {
                const stn_series_term *tm = &d->terms[j];
                if (tm->series != s)
                    continue;
                hi = tm->k > hi ? tm->k : hi;
                fprintf(out, "%s %s[t", n++ ? "," : "", d->series[s].name);
                if (tm->k)
                    fprintf(out, "%+d", tm->k);
                fputs("]", out);
            }
            if (hi)
                fprintf(out, ": at least --steps + %d values\n", hi);
            else
                fprintf(out, ": at least --steps values\n");
        }
    }
    if (d->npointsets) {
        fprintf(out,
                "\nPoints (--init NAME=FILE, required: an (n, %d) integer .npy, x first, in the interior):\n",
                stn_dims(d));
        for (int s = 0; s < d->npointsets; s++) {
            fprintf(out, "  %-12s", d->pointsets[s].name);
            if (d->pointsets[s].offgrid) /* (an f64 array instead, interpolated: docs/language.md) */
                fprintf(out, " off-grid: (n, %d) f64, in %s%s;", stn_dims(d),
                        d->pointsets[s].spacing >= 0 ? "units of param " : "cells",
                        d->pointsets[s].spacing >= 0 ? d->params[d->pointsets[s].spacing].name : "");
            for (int k = 0; k < d->ninjects; k++)
                if (d->injects[k].points == s)
                    fprintf(out, " inject into %s;", d->fields[d->injects[k].field].name);
            for (int k = 0; k < d->nrecords; k++)
                if (d->records[k].points == s)
                    fprintf(out, " record %s;", d->records[k].name);
            fputc('\n', out);
        }
    }
    if (d->nrecords) {
        fprintf(out, "\nRecords (--out NAME=FILE: a (steps, n) .npy of %s, row t sampled after step t):\n",
                d->npy_descr);
        for (int k = 0; k < d->nrecords; k++)
            fprintf(out, "  %-12s at the points %s\n", d->records[k].name,
                    d->pointsets[d->records[k].points].name);
    }
}

void stn_usage(const stn_program_desc *d, FILE *out) {
#ifdef STN_HAVE_HDF5
    const char *no_hdf5 = "";
#else
    const char *no_hdf5 = "\n                          (not in this program: it was built without HDF5)";
#endif
    int n = stn_dims(d);
    const char *xyz = n == 3 ? "X,Y,Z" : n == 2 ? "X,Y" : "X";
    fprintf(out, "Usage: %s --size %s --steps N [options]\n", d->name, xyz);
    fprintf(out, "%s: %dd f%d stencil generated by stencilc %s from %s\n\n", d->name, n, 8 * d->elem_size,
            d->compiler_version ? d->compiler_version : "?", d->source ? d->source : "?");
    fprintf(out,
            "  --size %-16s the whole grid, boundary layer included, x first (required)\n"
            "  --steps N               time steps to run (required)\n"
            "  --init NAME=FILE        initial values of a field from a .npy file (repeatable);\n"
            "                          NAME.prev=FILE gives the previous level of a two-level field,\n"
            "                          NAME.prev.prev=FILE the one before it of a three-level field;\n"
            "                          FILE.h5:/DSET or FILE.h5:/DSET[I] an HDF5 dataset (I: a snapshot)\n"
            "  --out NAME=FILE         write a field's final values to a .npy file, or to an HDF5\n"
            "                          dataset FILE.h5:/DSET (repeatable)\n"
            "  --save NAME:every=K[:from=A][:to=B][:stride=S]\n"
            "                          snapshots of a state field every K steps from step A (default\n"
            "                          0) to B (default --steps), every S-th cell (repeatable)\n"
            "  --save-to FILE.h5       the HDF5 file the snapshots and the records go to%s\n"
            "  --param NAME=VALUE      override a param (repeatable)\n"
            "  --mode ooc|incore|mmap|gpu|gpu-ooc\n"
            "                          the engine: out-of-core (the default), all in DRAM, mapped\n"
            "                          files, on one GPU, or streamed through it (--target cuda)\n"
            "  --gpu-mem BYTES         the device memory of gpu and gpu-ooc (default: its free memory)\n"
            "  --dir DIR               where the out-of-core scratch files go (default: .); or\n"
            "                          DIR0,DIR1,...: one per NUMA node, a node's rows of y in its\n"
            "                          own directory\n"
            "  --tier aio|pmem         how they are reached: libaio and O_DIRECT (the default), or\n"
            "                          mapped with libpmem and copied (persistent memory, a DAX\n"
            "                          file system; any file system works, without DAX msync'd)\n"
            "  --mem BYTES             DRAM budget, e.g. 2G (default: 3/4 of the available memory)\n"
            "  --tuner blk|naive|brute how the out-of-core blocking is chosen (default blk: Blk-Tune;\n"
            "                          naive: the paper's Naive-Tune; brute: every combination, slow)\n"
            "  --rank time|bytes       what the tuner minimises: predicted seconds (the default) or\n"
            "                          flash bytes alone (the paper's cost)\n"
            "  --block %-15s fix the out-of-core blocking by hand\n"
            "  --schedule ref|alg1|alg2  the out-of-core schedule\n"
            "  --strip dram|file       y-blocked (by < ny): keep the z-strip in DRAM or spill it\n"
            "  --resume                continue an interrupted out-of-core run\n"
            "  --plan-only             choose the blocks (tuner or --block), print them and the\n"
            "                          predicted bytes, and stop: no scratch file, no step\n"
            "  --iblock %-14s fix the iBlock (the cache block all threads share) by hand\n"
            "  --machine FILE.json     with --plan-only: plan for a described machine (offline tuning)\n"
            "  --time-tiles auto|off|%s  in-core: advance cache-sized skewed tiles several steps\n"
            "                          at a time (default auto: sized to the caches)\n"
            "  --ranks %-15s MPI: the ranks along each axis (default: the split the IO model\n"
            "                          prefers); their product is the ranks mpirun starts\n"
            "  --threads N             OpenMP threads\n"
            "  --report FILE           write a JSON report of the run\n"
            "  --quiet                 nothing on stderr but errors (no plan, progress, summary)\n"
            "  --help, --version\n",
            xyz, no_hdf5,
            n == 3   ? "BY,BZ,BT"
            : n == 2 ? "BY,BT"
                     : "BT",
            n == 3   ? "IY,IZ"
            : n == 2 ? "IY"
                     : "(none in 1d)",
            n == 3   ? "BY,BZ,BT"
            : n == 2 ? "BY,BT"
                     : "BT",
            n == 3   ? "PX,PY,PZ"
            : n == 2 ? "PX,PY"
                     : "PX");
    usage_fields(d, out);
}
