/* args.c -- the generated program's command line (docs/cli.md).
 *
 * Every mistake is reported with the option and the value as the user wrote them, and what
 * would have been accepted; the caller prints "NAME: error: MESSAGE" and exits with 2. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ stn_parse_bytes */

static int bytes_error(const char *text) {
    return stn_error(-EINVAL,
                     "'%s' is not a byte count: expected a number with an optional K, M, G or T suffix "
                     "(binary units), e.g. 4096, 512M, 2G, 1.5T",
                     text ? text : "(null)");
}

int stn_parse_bytes(const char *text, uint64_t *out) {
    if (!text)
        return bytes_error(text);
    const char *s = text;
    uint64_t whole = 0;
    int digits = 0, frac_digits = 0;
    for (; isdigit((unsigned char)*s); s++, digits++) {
        unsigned d = (unsigned)(*s - '0');
        if (whole > (UINT64_MAX - d) / 10)
            return stn_error(-ERANGE, "'%s' is too large for a byte count (at most 2^64-1)", text);
        whole = whole * 10 + d;
    }
    double frac = 0, scale = 0.1;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, frac_digits++, scale /= 10)
            frac += (*s - '0') * scale;
    if (digits + frac_digits == 0)
        return bytes_error(text);
    int shift = 0;
    const char *units = "KMGT", *u = *s ? strchr(units, toupper((unsigned char)*s)) : NULL;
    if (u) {
        shift = 10 * (int)(u - units + 1);
        s++;
        if (s[0] == 'i' && s[1] == 'B')
            s += 2;
    }
    if (*s == 'B')
        s++;
    if (*s || (frac_digits && !shift))
        return bytes_error(text); /* junk, or a fraction of a byte */
    if (whole > (UINT64_MAX >> shift))
        return stn_error(-ERANGE, "'%s' is too large for a byte count (at most 2^64-1)", text);
    uint64_t v = whole << shift, extra = (uint64_t)(frac * (double)(1ULL << shift));
    if (v > UINT64_MAX - extra)
        return stn_error(-ERANGE, "'%s' is too large for a byte count (at most 2^64-1)", text);
    *out = v + extra;
    return 0;
}

/* ------------------------------------------------------------------ small parsers */

/* Digits only (no sign, no spaces) into a non-negative int64; returns the end or NULL. */
static const char *parse_count(const char *s, int64_t *v) {
    int64_t n = 0;
    const char *start = s;
    for (; isdigit((unsigned char)*s); s++) {
        int d = *s - '0';
        if (n > (INT64_MAX - d) / 10)
            return NULL;
        n = n * 10 + d;
    }
    if (s == start)
        return NULL;
    *v = n;
    return s;
}

/* Exactly `n` positive integers separated by commas. */
static int parse_positive_list(const char *s, int n, int64_t *out) {
    for (int i = 0; i < n; i++) {
        s = parse_count(s, &out[i]);
        if (!s || out[i] <= 0 || *s != (i + 1 < n ? ',' : '\0'))
            return -EINVAL;
        s++;
    }
    return 0;
}

/* Index of `text` in a NULL-terminated list, or -1. */
static int choice_index(const char *const *names, const char *text) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

/* "a, b, c" into buf.  The names are the `name` members of an array of structs, so they lie
 * `stride` bytes apart, starting at `names`. */
static const char *join_names(char *buf, size_t n, const char *const *names, int count, size_t stride) {
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && k < n; i++) {
        const char *name = *(const char *const *)((const char *)names + (size_t)i * stride);
        k += (size_t)snprintf(buf + k, n - k, i ? ", %s" : "%s", name);
    }
    return buf;
}

static const char *field_names(const stn_program_desc *d, char *buf, size_t n) {
    return join_names(buf, n, &d->fields[0].name, d->nfields, sizeof(stn_field_desc));
}

static const char *param_names(const stn_program_desc *d, char *buf, size_t n) {
    return d->nparams ? join_names(buf, n, &d->params[0].name, d->nparams, sizeof(stn_param_desc)) : "";
}

/* ------------------------------------------------------------------ the option table */

enum {
    OPT_SIZE,
    OPT_STEPS,
    OPT_DIR,
    OPT_MEM,
    OPT_INIT,
    OPT_OUT,
    OPT_PARAM,
    OPT_MODE,
    OPT_TUNER,
    OPT_RANK,
    OPT_BLOCK,
    OPT_SCHEDULE,
    OPT_STRIP,
    OPT_PLAN_ONLY,
    OPT_MACHINE,
    OPT_IBLOCK,
    OPT_TIME_TILES,
    OPT_RANKS,
    OPT_TIER,
    OPT_RESUME,
    OPT_REPORT,
    OPT_QUIET,
    OPT_THREADS,
    OPT_HELP,
    OPT_VERSION,
    OPT_SAVE,
    OPT_SAVE_TO,
    OPT_GPU_MEM,
};

typedef struct opt_spec {
    const char *name;
    int id;
    int takes_value;
    int repeatable; /* --init/--out/--param/--save: once per name instead of once in all */
} opt_spec;

static const opt_spec opt_specs[] = {
    {"size", OPT_SIZE, 1, 0},
    {"steps", OPT_STEPS, 1, 0},
    {"dir", OPT_DIR, 1, 0},
    {"mem", OPT_MEM, 1, 0},
    {"init", OPT_INIT, 1, 1},
    {"out", OPT_OUT, 1, 1},
    {"param", OPT_PARAM, 1, 1},
    {"mode", OPT_MODE, 1, 0},
    {"tuner", OPT_TUNER, 1, 0},
    {"rank", OPT_RANK, 1, 0},
    {"block", OPT_BLOCK, 1, 0},
    {"schedule", OPT_SCHEDULE, 1, 0},
    {"resume", OPT_RESUME, 0, 0},
    {"report", OPT_REPORT, 1, 0},
    {"quiet", OPT_QUIET, 0, 0},
    {"threads", OPT_THREADS, 1, 0},
    {"help", OPT_HELP, 0, 0},
    {"version", OPT_VERSION, 0, 0},
    {"strip", OPT_STRIP, 1, 0},
    {"plan-only", OPT_PLAN_ONLY, 0, 0},
    {"machine", OPT_MACHINE, 1, 0},
    {"iblock", OPT_IBLOCK, 1, 0},
    {"time-tiles", OPT_TIME_TILES, 1, 0},
    {"ranks", OPT_RANKS, 1, 0},
    {"save", OPT_SAVE, 1, 1},
    {"save-to", OPT_SAVE_TO, 1, 0},
    {"tier", OPT_TIER, 1, 0},
    {"gpu-mem", OPT_GPU_MEM, 1, 0},
};
#define N_OPTS ((int)(sizeof opt_specs / sizeof opt_specs[0]))

typedef struct parser {
    const stn_program_desc *d;
    stn_opts *o;
    const opt_spec *spec;
    const char *val; /* the option's value */
    unsigned seen;   /* bit per option id */
    unsigned char *param_seen;
    int nranks; /* the ranks the run has (the MPI layer's count, given by the caller) */
} parser;

/* ------------------------------------------------------------------ one option each */

static int opt_size(parser *p) {
    const stn_program_desc *d = p->d;
    int64_t v[3] = {1, 1, 1};
    int n = stn_dims(d);
    if (n == 1 && parse_positive_list(p->val, 1, v) != 0)
        return stn_error(-EINVAL, "--size %s: expected one positive integer, x (this stencil is 1d)", p->val);
    if (parse_positive_list(p->val, n, v) != 0)
        return stn_error(
            -EINVAL, "--size %s: expected %d positive integers %s separated by commas (this stencil is %dd)",
            p->val, n, n == 3 ? "x,y,z" : "x,y", n);
    memcpy(p->o->size, v, sizeof v);
    p->o->size_text = p->val;
    return 0;
}

/* --steps: at most STN_MAX_STEPS (stn_rt.h); a run whose bytes would pass what the counters count is
 * refused once planned (engines/ooc/ooc_setup.c, check_countable). */
static int opt_steps(parser *p) {
    const char *end = parse_count(p->val, &p->o->steps);
    if (!end || *end)
        return stn_error(-EINVAL, "--steps %s: expected a non-negative integer", p->val);
    if (p->o->steps > STN_MAX_STEPS)
        return stn_error(-EINVAL, "--steps %s: at most %lld", p->val, (long long)STN_MAX_STEPS);
    return 0;
}

static int opt_mem(parser *p) {
    if (stn_parse_bytes(p->val, &p->o->mem) != 0)
        return stn_error(
            -EINVAL, "--mem %s: expected a byte count such as 4096, 512M, 2G or 1.5T (binary units)", p->val);
    if (p->o->mem == 0)
        return stn_error(-EINVAL, "--mem %s: the DRAM budget must be positive", p->val);
    p->o->mem_given = 1;
    return 0;
}

/* --gpu-mem: the device memory --mode gpu and gpu-ooc may use (engines/gpu.c). */
static int opt_gpu_mem(parser *p) {
    if (stn_parse_bytes(p->val, &p->o->gpu_mem) != 0 || p->o->gpu_mem == 0)
        return stn_error(
            -EINVAL,
            "--gpu-mem %s: expected a positive byte count such as 4096, 512M, 2G or 1.5T (binary units)",
            p->val);
    return 0;
}

static int find_field(const stn_program_desc *d, const char *name, size_t len) {
    for (int f = 0; f < d->nfields; f++)
        if (strlen(d->fields[f].name) == len && strncmp(d->fields[f].name, name, len) == 0)
            return f;
    return -1;
}

/* The fields declared with `levels 2`, for messages about NAME.prev. */
static const char *two_level_fields(const stn_program_desc *d, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = '\0';
    for (int f = 0; f < d->nfields && k < n; f++)
        if (d->fields[f].kind == STN_FIELD_STATE && d->fields[f].levels == 2)
            k += (size_t)snprintf(buf + k, n - k, k ? ", %s" : "%s", d->fields[f].name);
    return k ? buf : "none";
}

/* --init NAME=FILE, --init NAME.prev=FILE, and the same for --out. */
static int opt_field_file(parser *p, const char **paths) {
    const char *opt = p->spec->name, *eq = strchr(p->val, '=');
    char names[512];
    if (!eq || eq == p->val || !eq[1])
        return stn_error(-EINVAL, "--%s %s: expected NAME=FILE (e.g. --%s %s=%s.npy)", opt, p->val, opt,
                         p->d->fields[0].name, p->d->fields[0].name);
    size_t len = (size_t)(eq - p->val);
    int is_out = paths == p->o->out_path;
    for (int s = 0; s < p->d->nalong; s++) { /* --init C=FILE of an input along an axis */
        const char *sn = p->d->alongs[s].name;
        if (strlen(sn) != len || strncmp(sn, p->val, len) != 0)
            continue;
        if (is_out)
            return stn_error(-EINVAL,
                             "--out %s: '%s' is an input along %c, given to the run (--init %s=FILE)", p->val,
                             sn, "xyz"[p->d->alongs[s].axis], sn);
        if (p->o->along_path[s])
            return stn_error(-EINVAL, "--init %s: %s is already given as '%s' (one --init per field)", p->val,
                             sn, p->o->along_path[s]);
        p->o->along_path[s] = eq + 1;
        return 0;
    }
    for (int s = 0; s < p->d->npointsets; s++) { /* --init POINTS=FILE */
        const char *sn = p->d->pointsets[s].name;
        if (strlen(sn) != len || strncmp(sn, p->val, len) != 0)
            continue;
        if (is_out)
            return stn_error(-EINVAL, "--out %s: '%s' is a set of points, given to the run (--init %s=FILE)",
                             p->val, sn, sn);
        if (p->o->points_path[s])
            return stn_error(-EINVAL, "--init %s: points %s are already given as '%s' (one --init per set)",
                             p->val, sn, p->o->points_path[s]);
        p->o->points_path[s] = eq + 1;
        return 0;
    }
    for (int s = 0; s < p->d->nrecords; s++) { /* --out RECORD=FILE */
        const char *sn = p->d->records[s].name;
        if (strlen(sn) != len || strncmp(sn, p->val, len) != 0)
            continue;
        if (!is_out)
            return stn_error(-EINVAL, "--init %s: '%s' is a record, sampled by the run (--out %s=FILE)",
                             p->val, sn, sn);
        if (p->o->record_path[s])
            return stn_error(-EINVAL, "--out %s: record %s is already given as '%s' (one --out per record)",
                             p->val, sn, p->o->record_path[s]);
        p->o->record_path[s] = eq + 1;
        return 0;
    }
    for (int s = 0; s < p->d->nseries; s++) {
        const char *sn = p->d->series[s].name;
        if (strlen(sn) != len || strncmp(sn, p->val, len) != 0)
            continue;
        if (is_out)
            return stn_error(-EINVAL,
                             "--out %s: '%s' is a series, given to the run (--init %s=FILE); --out "
                             "writes fields",
                             p->val, sn, sn);
        if (p->o->series_path[s])
            return stn_error(-EINVAL, "--init %s: series %s is already given as '%s' (one --init per series)",
                             p->val, sn, p->o->series_path[s]);
        p->o->series_path[s] = eq + 1;
        return 0;
    }
    int level = 0, f = find_field(p->d, p->val, len); /* (exact: "u", or "u.prev.prev" of three levels) */
    if (f < 0 && len > 5 && strncmp(eq - 5, ".prev", 5) == 0) {
        level = 1;
        len -= 5;
        f = find_field(p->d, p->val, len);
    }
    if (f < 0 && level && len > 5 && strncmp(p->val + len - 5, ".prev", 5) == 0 &&
        (f = find_field(p->d, p->val, len - 5)) >= 0)
        return stn_error(
            -EINVAL, "--%s %s: '%s' has %s; NAME.prev.prev is only for fields declared with 'levels 3'", opt,
            p->val, p->d->fields[f].name, p->d->fields[f].levels == 2 ? "two time levels" : "one time level");
    if (f < 0)
        return stn_error(-EINVAL, "--%s %s: this stencil has no field '%.*s'; its fields are: %s", opt,
                         p->val, (int)len, p->val, field_names(p->d, names, sizeof names));
    const stn_field_desc *fd = &p->d->fields[f];
    if (level == 1 && !(fd->kind == STN_FIELD_STATE && fd->levels == 2))
        return stn_error(-EINVAL,
                         "--%s %s: '%s' has one time level; NAME.prev is only for fields declared with "
                         "'levels 2' (here: %s)",
                         opt, p->val, fd->name, two_level_fields(p->d, names, sizeof names));
    if (paths[2 * f + level])
        return stn_error(-EINVAL, "--%s %s: %s%s is already given as '%s' (one --%s per field)", opt, p->val,
                         fd->name, level ? ".prev" : "", paths[2 * f + level], opt);
    paths[2 * f + level] = eq + 1;
    return 0;
}

static int opt_param(parser *p) {
    const char *eq = strchr(p->val, '=');
    char names[512];
    if (!eq || eq == p->val)
        return stn_error(-EINVAL, "--param %s: expected NAME=VALUE (e.g. --param %s=0.5)", p->val,
                         p->d->nparams ? p->d->params[0].name : "alpha");
    size_t len = (size_t)(eq - p->val);
    int k = -1;
    for (int i = 0; i < p->d->nparams && k < 0; i++)
        if (strlen(p->d->params[i].name) == len && strncmp(p->d->params[i].name, p->val, len) == 0)
            k = i;
    if (k < 0 && p->d->nparams == 0)
        return stn_error(-EINVAL, "--param %s: this stencil has no params", p->val);
    if (k < 0)
        return stn_error(-EINVAL, "--param %s: this stencil has no param '%.*s'; its params are: %s", p->val,
                         (int)len, p->val, param_names(p->d, names, sizeof names));
    if (p->param_seen[k])
        return stn_error(-EINVAL, "--param %s: '%s' is already set (one --param per name)", p->val,
                         p->d->params[k].name);
    /* strtod of the whole string: no leading spaces, nothing after the number */
    const char *num = eq + 1;
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (!*num || isspace((unsigned char)*num) || *end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1))
        return stn_error(-EINVAL, "--param %s: '%s' is not a finite number", p->val, num);
    if (errno == ERANGE && v == 0) /* (a subnormal also sets ERANGE: it is a finite number) */
        return stn_error(-EINVAL,
                         "--param %s: '%s' is too small for a double (it would be 0; the smallest is about "
                         "4.9e-324)",
                         p->val, num);
    if (strpbrk(num,
                "xXpP")) /* strtod reads C's hexadecimal floats; the .stn file has decimal numbers only */
        return stn_error(-EINVAL, "--param %s: '%s' is hexadecimal; give a decimal number", p->val, num);
    p->o->params[k] = v;
    p->param_seen[k] = 1;
    return 0;
}

static int opt_choice(parser *p, const char *const *names, int *out) {
    char list[128];
    int i = choice_index(names, p->val);
    if (i < 0) {
        int n = 0;
        while (names[n])
            n++;
        return stn_error(-EINVAL, "--%s %s: expected one of %s", p->spec->name, p->val,
                         join_names(list, sizeof list, names, n, sizeof(char *)));
    }
    *out = i;
    return 0;
}

static int opt_block(parser *p) {
    int n = p->d->ndim; /* by,bz,bt in 3d; by,bt in 2d; bx,bt or bt (one block) in 1d */
    int64_t v[3] = {0, 0, 0};
    if (stn_dims(p->d) == 1) {
        int two = strchr(p->val, ',') != NULL;
        if (parse_positive_list(p->val, two ? 2 : 1, v) != 0)
            return stn_error(-EINVAL,
                             "--block %s: expected bx,bt (the cells of a block and its steps) or bt (the "
                             "whole grid one block), positive integers",
                             p->val);
        p->o->block[0] = two ? v[0] : 0, p->o->block[1] = 0, p->o->block[2] = two ? v[1] : v[0];
        p->o->have_block = 1;
        return 0;
    }
    if (parse_positive_list(p->val, n, v) != 0)
        return stn_error(-EINVAL, "--block %s: expected %s (%d positive integers separated by commas)",
                         p->val, n == 3 ? "by,bz,bt" : "by,bt", n);
    p->o->block[0] = v[0];
    p->o->block[1] = n == 3 ? v[1] : 0;
    p->o->block[2] = v[n - 1];
    p->o->have_block = 1;
    return 0;
}

static int opt_iblock(parser *p) {
    int n = p->d->ndim - 1; /* iy,iz in 3d; iy in 2d */
    int64_t v[2] = {0, 1};
    if (stn_dims(p->d) == 1)
        return stn_error(
            -EINVAL, "--iblock %s: a 1d grid has no iBlock to choose (its one row is cut among the threads)",
            p->val);
    if (parse_positive_list(p->val, n, v) != 0)
        return stn_error(-EINVAL, "--iblock %s: expected %s (%d positive integer%s separated by commas)",
                         p->val, n == 2 ? "iy,iz" : "iy", n, n == 2 ? "s" : "");
    p->o->iblock[0] = v[0];
    p->o->iblock[1] = v[1];
    return 0;
}

/* --ranks PX[,PY[,PZ]]: the MPI ranks along each axis of the grid (docs/design/019); their
 * product must be the ranks mpirun started, which the program checks once MPI is up. */
static int opt_ranks(parser *p) {
    int n = stn_dims(p->d);
    int64_t v[3] = {1, 1, 1};
    if (parse_positive_list(p->val, n, v) != 0)
        return stn_error(-EINVAL, "--ranks %s: expected %s (%d positive integer%s separated by commas)",
                         p->val,
                         n == 3   ? "px,py,pz"
                         : n == 2 ? "px,py"
                                  : "px",
                         n, n > 1 ? "s" : "");
    if (v[0] > INT32_MAX || v[1] > INT32_MAX / v[0] || v[2] > INT32_MAX / (v[0] * v[1]))
        return stn_error(-EINVAL, "--ranks %s: more ranks than MPI starts (at most %d in all)", p->val,
                         INT32_MAX);
    for (int k = 0; k < 3; k++)
        p->o->ranks[k] = v[k];
    p->o->ranks_text = p->val;
    return 0;
}

/* --time-tiles auto|off|BY,BZ,BT (BY,BT in 2d): the in-core engine's temporal tiles. */
static int opt_time_tiles(parser *p) {
    int n = p->d->ndim; /* by,bz,bt in 3d; by,bt in 2d; bt in 1d */
    int64_t v[3] = {0, 1, 0};
    if (strcmp(p->val, "auto") == 0)
        return 0;
    if (strcmp(p->val, "off") == 0) {
        p->o->time_tiles[2] = -1;
        return 0;
    }
    if (stn_dims(p->d) == 1) {
        if (parse_positive_list(p->val, 1, v) != 0)
            return stn_error(-EINVAL, "--time-tiles %s: expected auto, off or bt (a 1d grid is one tile)",
                             p->val);
        p->o->time_tiles[0] = 1, p->o->time_tiles[1] = 1, p->o->time_tiles[2] = v[0];
        return 0;
    }
    if (parse_positive_list(p->val, n, v) != 0)
        return stn_error(
            -EINVAL, "--time-tiles %s: expected auto, off or %s (%d positive integers separated by commas)",
            p->val, n == 3 ? "by,bz,bt" : "by,bt", n);
    p->o->time_tiles[0] = v[0];
    p->o->time_tiles[1] = n == 3 ? v[1] : 1;
    p->o->time_tiles[2] = n == 3 ? v[2] : v[1];
    return 0;
}

/* OpenMP's runtime fails (or crashes, past ~60000) when asked for threads it cannot start; a machine
 * with more hardware threads than this does not exist yet. */
#define STN_MAX_THREADS 4096

static int opt_threads(parser *p) {
    int64_t n;
    const char *end = parse_count(p->val, &n);
    if (!end || *end || n <= 0)
        return stn_error(-EINVAL, "--threads %s: expected a positive integer", p->val);
    if (n > STN_MAX_THREADS)
        return stn_error(-EINVAL, "--threads %s: more threads than any machine runs (at most %d)", p->val,
                         STN_MAX_THREADS);
    p->o->threads = (int)n;
    return 0;
}

static int opt_name(parser *p, const char **out, const char *what) {
    if (!*p->val)
        return stn_error(-EINVAL, "--%s: expected %s, got an empty string", p->spec->name, what);
    *out = p->val;
    return 0;
}

static int apply(parser *p) {
    stn_opts *o = p->o;
    switch (p->spec->id) {
    case OPT_SIZE:
        return opt_size(p);
    case OPT_STEPS:
        return opt_steps(p);
    case OPT_DIR:
        return opt_name(p, &o->dir, "a directory");
    case OPT_MEM:
        return opt_mem(p);
    case OPT_GPU_MEM:
        return opt_gpu_mem(p);
    case OPT_INIT:
        return opt_field_file(p, o->init_path);
    case OPT_OUT:
        return opt_field_file(p, o->out_path);
    case OPT_PARAM:
        return opt_param(p);
    case OPT_MODE:
        return opt_choice(p, stn_mode_names, &o->mode);
    case OPT_TUNER:
        return opt_choice(p, stn_tuner_names, &o->tuner);
    case OPT_RANK:
        return opt_choice(p, stn_rank_names, &o->rank);
    case OPT_TIER:
        return opt_choice(p, stn_tier_names, &o->tier);
    case OPT_BLOCK:
        return opt_block(p);
    case OPT_SCHEDULE:
        return opt_choice(p, stn_schedule_names, &o->schedule);
    case OPT_STRIP: {
        int i, rc = opt_choice(p, stn_strip_names + STN_STRIP_DRAM, &i); /* "dram" or "file" */
        if (rc == 0)
            o->strip = i + 1;
        return rc;
    }
    case OPT_REPORT:
        return opt_name(p, &o->report, "a file name");
    case OPT_THREADS:
        return opt_threads(p);
    case OPT_RESUME:
        o->resume = 1;
        return 0;
    case OPT_PLAN_ONLY:
        o->plan_only = 1;
        return 0;
    case OPT_MACHINE:
        return opt_name(p, &o->machine, "a machine file (JSON, see docs/machines.md)");
    case OPT_IBLOCK:
        return opt_iblock(p);
    case OPT_TIME_TILES:
        return opt_time_tiles(p);
    case OPT_RANKS:
        return opt_ranks(p);
    case OPT_QUIET:
        o->quiet = 1;
        return 0;
    case OPT_SAVE:
        return stn_save_parse(p->d, p->val, o);
    case OPT_SAVE_TO:
        return opt_name(p, &o->save_to, "an HDF5 file name (e.g. run.h5)");
    }
    return 0;
}

/* ------------------------------------------------------------------ the argv loop */

/* One argv element (and possibly the next, as its value); *i is advanced past what it used. */
static int parse_one(parser *p, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strncmp(a, "--", 2) != 0 || !a[2])
        return stn_error(-EINVAL, "unexpected argument '%s' (options start with --; see --help)", a);
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    p->spec = NULL;
    for (int k = 0; k < N_OPTS && !p->spec; k++)
        if (strlen(opt_specs[k].name) == len && strncmp(opt_specs[k].name, name, len) == 0)
            p->spec = &opt_specs[k];
    const char *names[N_OPTS], *close;
    for (int k = 0; k < N_OPTS; k++)
        names[k] = opt_specs[k].name;
    if (!p->spec && (close = stn_suggest(name, len, names, N_OPTS)) != NULL)
        return stn_error(-EINVAL, "unknown option '--%.*s'; did you mean '--%s'? (see --help)", (int)len,
                         name, close);
    if (!p->spec)
        return stn_error(-EINVAL, "unknown option '--%.*s' (see --help)", (int)len, name);
    if (!p->spec->takes_value) {
        if (eq)
            return stn_error(-EINVAL, "--%s takes no value (got '%s')", p->spec->name, a);
        p->val = "";
    } else if (eq) {
        p->val = eq + 1;
    } else if (*i + 1 < argc) {
        if (strncmp(argv[*i + 1], "--", 2) == 0) /* (`--dir --quiet` made a folder named --quiet) */
            return stn_error(-EINVAL,
                             "--%s needs a value, and '%s' is an option (write --%s=%s for a value that "
                             "starts with --)",
                             p->spec->name, argv[*i + 1], p->spec->name, argv[*i + 1]);
        p->val = argv[++*i];
    } else {
        return stn_error(-EINVAL, "--%s needs a value (see --help)", p->spec->name);
    }
    unsigned bit = 1u << p->spec->id;
    if (p->spec->takes_value && !p->spec->repeatable && (p->seen & bit))
        return stn_error(-EINVAL, "--%s is given twice (the second time as '%s')", p->spec->name, p->val);
    p->seen |= bit;
    return apply(p);
}

/* --help and --version win over everything else on the line, even over mistakes. */
static int wants_help(int argc, char **argv, stn_opts *o) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            o->help = 1;
        else if (strcmp(argv[i], "--version") == 0)
            o->version = 1;
    }
    return o->help || o->version;
}

static int check_line(parser *p) {
    stn_opts *o = p->o;
    if (!(p->seen & (1u << OPT_SIZE)))
        return stn_error(
            -EINVAL, "--size is required: the whole grid, boundary layer included, x first (e.g. --size %s)",
            stn_dims(p->d) == 3   ? "64,64,64"
            : stn_dims(p->d) == 2 ? "256,256"
                                  : "4096");
    if (!(p->seen & (1u << OPT_STEPS)))
        return stn_error(-EINVAL, "--steps is required: the number of time steps to run (e.g. --steps 100)");
    return stn_opts_check(p->d, o, p->nranks);
}

/* ------------------------------------------------------------------ entry points */

/* A field that holds F.prev.prev without an --init or an init of its own starts as F.prev: F.prev's
 * --init file, else (F.prev without an init of its own) F's --init file, else the init expression
 * the compiler gave it (F.prev's or F's), else zero. */
static void inherit_level2(const stn_program_desc *d, stn_opts *o) {
    for (int h = 0; o->init_path && h < d->nfields; h++) {
        const stn_field_desc *fd = &d->fields[h];
        int f = fd->level2_of - 1;
        if (f < 0 || o->init_path[2 * h] || fd->has_level2_init)
            continue;
        if (o->init_path[2 * f + 1])
            o->init_path[2 * h] = o->init_path[2 * f + 1];
        else if (!d->fields[f].has_prev_init)
            o->init_path[2 * h] = o->init_path[2 * f];
    }
}

int stn_opts_parse(const stn_program_desc *d, int argc, char **argv, int nranks, stn_opts *o) {
    memset(o, 0, sizeof *o);
    o->size[0] = o->size[1] = o->size[2] = 1;
    o->mode = STN_MODE_OOC;
    o->tuner = STN_TUNER_NONE;
    o->rank = STN_RANK_NONE;
    o->schedule = STN_SCHED_NONE;
    o->strip = -1;
    o->init_path = calloc(2 * (size_t)d->nfields + 1, sizeof *o->init_path);
    o->out_path = calloc(2 * (size_t)d->nfields + 1, sizeof *o->out_path);
    o->series_path = calloc((size_t)d->nseries + 1, sizeof *o->series_path);
    o->points_path = calloc((size_t)d->npointsets + 1, sizeof *o->points_path);
    o->record_path = calloc((size_t)d->nrecords + 1, sizeof *o->record_path);
    o->along_path = calloc((size_t)d->nalong + 1, sizeof *o->along_path);
    o->params = calloc((size_t)d->nparams + 1, sizeof *o->params);
    o->save = calloc((size_t)d->nfields + 1, sizeof *o->save);
    parser p = {d, o, NULL, NULL, 0, calloc((size_t)d->nparams + 1, 1), nranks};
    int rc = 0;
    if (!o->init_path || !o->out_path || !o->series_path || !o->points_path || !o->record_path ||
        !o->along_path || !o->params || !o->save || !p.param_seen)
        rc = stn_error(-ENOMEM, "out of memory parsing the command line");
    for (int k = 0; rc == 0 && k < d->nparams; k++)
        o->params[k] = d->params[k].value;
    if (rc == 0 && !wants_help(argc, argv, o)) {
        for (int i = 1; rc == 0 && i < argc; i++)
            rc = parse_one(&p, argc, argv, &i);
        if (rc == 0)
            rc = check_line(&p);
    }
    free(p.param_seen);
    inherit_level2(d, o);
    return rc;
}

void stn_opts_free(stn_opts *o) {
    free(o->init_path);
    free(o->out_path);
    free(o->series_path);
    free(o->points_path);
    free(o->record_path);
    free(o->along_path);
    free(o->params);
    free(o->save);
    free(o->dirs_buf);
    o->save = NULL, o->dirs_buf = NULL;
    o->init_path = o->out_path = o->series_path = o->points_path = o->record_path = o->along_path = NULL;
    o->params = NULL;
}

int64_t stn_grid_cells(const stn_opts *o) { return o->size[0] * o->size[1] * o->size[2]; }

void stn_opts_bound_bt(stn_opts *o, int open) {
    int64_t most = open ? STN_OPEN_MAX_BT : o->steps > 0 ? o->steps : 1;
    if (o->have_block && o->block[2] > most)
        o->block[2] = most; /* (docs/cli.md: a BT above the steps is one sweep) */
}
