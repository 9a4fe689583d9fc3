/* save.c -- the command line's snapshots (docs/cli.md, --save and --save-to; docs/design/021): each
 * --save spec parsed, then the whole request checked before any file is touched, and the arithmetic of
 * which steps and cells a spec keeps, which the engines and the HDF5 writer (io/hdf5.c) share. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAVE_FORM "FIELD:every=K[:from=A][:to=B][:stride=S]"

/* A state field's index by name, or -1. */
static int save_field(const stn_program_desc *d, const char *name, size_t len) {
    for (int f = 0; f < d->nfields; f++)
        if (strlen(d->fields[f].name) == len && strncmp(d->fields[f].name, name, len) == 0)
            return f;
    return -1;
}

static const char *state_names(const stn_program_desc *d, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = '\0';
    for (int f = 0; f < d->nfields && k < n; f++)
        if (d->fields[f].kind == STN_FIELD_STATE)
            k += (size_t)snprintf(buf + k, n - k, k ? ", %s" : "%s", d->fields[f].name);
    return buf;
}

/* One KEY=DIGITS of a spec into *out (at most 10^15, as --steps). */
static int save_key(const char *text, const char *key, const char *v, size_t len, int64_t *out) {
    int64_t n = 0;
    if (len == 0)
        return stn_error(-EINVAL, "--save %s: %s= needs a value (a non-negative integer)", text, key);
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)v[i]))
            return stn_error(-EINVAL, "--save %s: %s=%.*s: expected a non-negative integer (digits only)",
                             text, key, (int)len, v);
        n = n * 10 + (v[i] - '0');
        if (n > 1000000000000000LL)
            return stn_error(-EINVAL, "--save %s: %s=%.*s: too large (at most 10^15, as --steps)", text, key,
                             (int)len, v);
    }
    *out = n;
    return 0;
}

/* The KEY=VALUE parts after the field's name. */
static int save_parts(const char *text, const char *s, stn_save *sv) {
    static const char *const keys[] = {"every", "from", "to", "stride"};
    int64_t *dst[] = {&sv->every, &sv->from, &sv->to, &sv->stride};
    unsigned seen = 0;
    while (*s == ':') {
        s++;
        const char *end = strchr(s, ':'), *eq = strchr(s, '=');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (!eq || eq > s + len)
            return stn_error(-EINVAL, "--save %s: '%.*s' is not KEY=VALUE (expected %s)", text, (int)len, s,
                             SAVE_FORM);
        int k = 0;
        while (k < 4 && !(strlen(keys[k]) == (size_t)(eq - s) && strncmp(keys[k], s, (size_t)(eq - s)) == 0))
            k++;
        if (k == 4)
            return stn_error(-EINVAL, "--save %s: unknown key '%.*s' (the keys are every, from, to, stride)",
                             text, (int)(eq - s), s);
        if (seen & (1u << k))
            return stn_error(-EINVAL, "--save %s: %s= is given twice", text, keys[k]);
        seen |= 1u << k;
        int rc = save_key(text, keys[k], eq + 1, (size_t)(s + len - eq - 1), dst[k]);
        if (rc)
            return rc;
        s += len;
    }
    if (*s)
        return stn_error(-EINVAL, "--save %s: expected %s", text, SAVE_FORM);
    if (!(seen & 1u) || sv->every < 1)
        return stn_error(
            -EINVAL, "--save %s: every=K with K >= 1 is required (the steps between two snapshots)", text);
    if ((seen & 8u) && sv->stride < 1)
        return stn_error(-EINVAL, "--save %s: stride=%" PRId64 ": expected a positive integer", text,
                         sv->stride);
    if ((seen & 4u) && sv->to < sv->from)
        return stn_error(-EINVAL,
                         "--save %s: to=%" PRId64 " is before from=%" PRId64 ": nothing would be saved", text,
                         sv->to, sv->from);
    sv->to_given = (seen & 4u) != 0;
    if (!(seen & 8u))
        sv->stride = 1;
    return 0;
}

int stn_save_parse(const stn_program_desc *d, const char *text, stn_opts *o) {
    char names[512];
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0)
        return stn_error(-EINVAL, "--save %s: expected %s (e.g. --save %s:every=10)", text, SAVE_FORM,
                         state_names(d, names, sizeof names));
    int f = save_field(d, text, len);
    if (f < 0)
        return stn_error(-EINVAL, "--save %s: this stencil has no field '%.*s'; its state fields are: %s",
                         text, (int)len, text, state_names(d, names, sizeof names));
    if (d->fields[f].kind != STN_FIELD_STATE)
        return stn_error(-EINVAL,
                         "--save %s: '%s' is an input, which does not change in time; its state fields "
                         "are: %s",
                         text, d->fields[f].name, state_names(d, names, sizeof names));
    if (o->save[f].every)
        return stn_error(-EINVAL, "--save %s: %s is already saved (one --save per field)", text,
                         d->fields[f].name);
    if (!colon)
        return stn_error(-EINVAL, "--save %s: every=K is required (e.g. --save %s:every=10)", text,
                         d->fields[f].name);
    stn_save sv = {0, 0, 0, 1, 0};
    int rc = save_parts(text, colon, &sv);
    if (rc)
        return rc;
    o->save[f] = sv;
    o->nsaves++;
    return 0;
}

/* The --save-to file against every other file of the run. */
static int save_to_files(const stn_program_desc *d, const stn_opts *o) {
    const char *to = o->save_to;
    for (int s = 0; s < 2 * d->nfields; s++) {
        if (o->init_path[s] && stn_same_file(to, o->init_path[s]))
            return stn_error(-EINVAL,
                             "--save-to %s: '%s' is the --init file of %s%s; input files are never "
                             "overwritten: choose another output name",
                             to, to, d->fields[s / 2].name, s % 2 ? ".prev" : "");
        if (o->out_path[s] && stn_same_file(to, o->out_path[s]))
            return stn_error(-EINVAL, "--save-to %s: '%s' is also the --out file of %s%s", to, to,
                             d->fields[s / 2].name, s % 2 ? ".prev" : "");
    }
    const char *const *lists[] = {o->series_path, o->points_path, o->along_path, o->record_path};
    int counts[] = {d->nseries, d->npointsets, d->nalong, d->nrecords};
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < counts[l]; k++)
            if (lists[l][k] && stn_same_file(to, lists[l][k]))
                return stn_error(-EINVAL, "--save-to %s: '%s' is also %s of the run", to, to,
                                 l < 3 ? "an --init file" : "an --out file");
    if (o->report && stn_same_file(to, o->report))
        return stn_error(-EINVAL, "--save-to %s: '%s' is also the --report file", to, to);
    return 0;
}

int stn_save_check(const stn_program_desc *d, stn_opts *o, int nranks) {
    int defaults = o->save_to && !o->nsaves; /* the .stn's saves, unless the command line has its own */
    for (int k = 0; defaults && k < d->ndefault_saves; k++) {
        int rc = stn_save_parse(d, d->default_saves[k], o);
        if (rc)
            return stn_error(rc, "the .stn's save statement: %s", stn_errmsg());
    }
    int f = 0;
    while (f < d->nfields && !o->save[f].every)
        f++;
    if (!o->save_to && o->nsaves)
        return stn_error(-EINVAL, "--save %s: the snapshots need a file: add --save-to FILE.h5",
                         d->fields[f].name);
    if (!o->save_to)
        return 0;
    if (!o->nsaves)
        return stn_error(-EINVAL, "--save-to %s: nothing is saved: add --save FIELD:every=K", o->save_to);
#ifndef STN_HAVE_HDF5
    return stn_error(-ENOTSUP,
                     "--save-to %s: this program was built without HDF5 (install libhdf5-dev, e.g. "
                     "apt-get install libhdf5-dev, and build it again with stencilc)",
                     o->save_to);
#endif
    if (o->plan_only)
        return stn_error(-EINVAL, "--plan-only computes nothing, so it writes no --save-to (%s)", o->save_to);
    if (nranks > 1 && o->resume && !stn_save_together(nranks)) /* (rank 0 writes alone: engines/engine.c) */
        return stn_error(-ENOTSUP,
                         "--save-to %s with --resume: a run of %d MPI ranks does not resume its snapshots "
                         "without parallel HDF5 (install libhdf5-openmpi-dev and build it again with "
                         "stencilc --mpi)",
                         o->save_to, nranks);
    for (f = 0; f < d->nfields; f++) {
        stn_save *s = &o->save[f];
        if (s->every && s->from > o->steps)
            return stn_error(
                -EINVAL, "--save %s: from=%" PRId64 " is past --steps %" PRId64 ": nothing would be saved",
                d->fields[f].name, s->from, o->steps);
        if (s->every && s->to_given && s->to > o->steps)
            return stn_error(-EINVAL,
                             "--save %s: to=%" PRId64 " is past --steps %" PRId64
                             " (leave to= out: the last step)",
                             d->fields[f].name, s->to, o->steps);
        if (s->every && !s->to_given)
            s->to = o->steps;
    }
    return save_to_files(d, o);
}

int stn_save_together(int nranks) {
#ifdef STN_H5_PARALLEL
    const char *g = getenv("STENCILC_H5_GATHER");
    return nranks > 1 && !(g && g[0] && strcmp(g, "0") != 0);
#else
    return (void)nranks, 0;
#endif
}

int stn_save_wants(const stn_save *s, int64_t k) {
    return s->every > 0 && k >= s->from && k <= s->to && (k - s->from) % s->every == 0;
}

int64_t stn_save_before(const stn_save *s, int64_t k) {
    if (s->every <= 0 || k <= s->from)
        return 0;
    int64_t last = k - 1 < s->to ? k - 1 : s->to; /* the steps [from, last] */
    return last < s->from ? 0 : (last - s->from) / s->every + 1;
}

int64_t stn_save_first(int64_t lo, int64_t stride) { return (lo + stride - 1) / stride * stride; }

int64_t stn_save_kept(int64_t lo, int64_t hi, int64_t stride) {
    int64_t a = stn_save_first(lo, stride);
    return hi > a ? (hi - a + stride - 1) / stride : 0;
}

int64_t stn_save_next(const stn_save *s, int64_t k) {
    if (s->every <= 0)
        return INT64_MAX;
    int64_t n = k <= s->from ? s->from : s->from + (k - s->from + s->every - 1) / s->every * s->every;
    return n <= s->to ? n : INT64_MAX;
}
