/* misuse.c -- a bounded random test of the runtime's simulation API (stn_sim_*, stn_rt.h) under use
 * and misuse, for test/python/test_embed_fuzz.py.  Built like host.c: -DSTN=NAME -include NAME_api.h.
 *
 *   misuse SEED OPS DIR --size X,Y,Z [OPTION ...]
 *
 * opens the subject, a simulation with the options given (e.g. --mode ooc --dir DIR --block 16,4,3
 * --out u=DIR/out.npy), and
 * a shadow, the same in-core, and makes OPS random calls on the subject: advances of every step count
 * (negative, 2^63 - 1, sums that overflow, past STN_MAX_STEPS), reads and writes of boxes in and out of
 * the grid (hi < lo, INT64 extremes), with NULL boxes, buffers and fields, unknown field names, dense,
 * reversed and negative strides, checkpoints and reports to good and bad paths, restarts from a
 * checkpoint, stn_sim_field, every call on a NULL simulation, and (out of core, once some steps are done)
 * scratch files cut short under an advance.  A model says which calls must succeed: a refused call
 * returns a negative errno with a message and changes nothing; an accepted read equals the shadow's
 * (which gets only the accepted writes and advances), bit for bit, as does a simulation restarted from a
 * checkpoint; after a failed advance every call but close is refused, close fails and writes no --out.
 * Before closing it writes the shadow's first field to DIR/shadow.raw (dense, x fastest), for comparing
 * the subject's --out.  Exit 0, or 1 naming the seed, the op and what differs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stn_rt.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(x) CAT(STN, CAT(_, x))

static uint64_t rng;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t between(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static const stn_program_desc *D;
static int dims, op;
static int64_t n[3] = {1, 1, 1};
static size_t es;
static char fail_text[8192];
static int nrefused;

#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        snprintf(fail_text, sizeof fail_text, __VA_ARGS__);                                                  \
        return 1;                                                                                            \
    } while (0)

/* A refused call: a negative errno and a message. */
static int refused(int rc, const char *what) {
    if (rc >= 0)
        FAIL("%s was accepted (%d), the model refuses it", what, rc);
    if (!stn_errmsg()[0])
        FAIL("%s returned %d with no message", what, rc);
    nrefused++;
    return 0;
}

static int accepted(int rc, const char *what) {
    if (rc != 0)
        FAIL("%s failed (%d): %s", what, rc, stn_errmsg());
    return 0;
}

/* A field name: a real one (maybe its previous level), or one that is not (ok = 0). */
static const char *field_name(int *ok, char *buf, size_t len) {
    int f = (int)between(0, D->nfields - 1);
    switch (between(0, 9)) {
    case 0:
        *ok = 0;
        return NULL;
    case 1:
        *ok = 0;
        return "";
    case 2:
        *ok = 0;
        snprintf(buf, len, "%s.", D->fields[f].name);
        return buf;
    case 3:
        *ok = 0;
        snprintf(buf, len, "%s.prevx", D->fields[f].name);
        return buf;
    case 4:
        *ok = 0;
        return "no_such_field";
    case 5:
        *ok = D->fields[f].levels > 1;
        snprintf(buf, len, "%s.prev", D->fields[f].name);
        return buf;
    default:
        *ok = 1;
        return D->fields[f].name;
    }
}

/* A box: inside the grid (ok), or with some axis outside it or reversed. */
static void random_box(stn_box *b, int *ok) {
    *ok = 1;
    for (int k = 0; k < 3; k++) {
        int64_t lo = between(0, n[k] - 1), hi = between(lo, n[k]);
        if (k < dims && between(0, 7) == 0) {
            static const int64_t odd[] = {-1, INT64_MIN, INT64_MAX, -100};
            switch (between(0, 4)) {
            case 0:
                hi = n[k] + between(1, 3);
                break;
            case 1:
                lo = odd[between(0, 3)];
                break;
            case 2:
                hi = odd[between(0, 3)];
                break;
            case 3:
                hi = lo - between(1, 3);
                break;
            default:
                lo = hi + 1;
            }
            *ok = 0;
        }
        b->lo[k] = k < dims ? lo : between(-5, 5); /* (the other axes are ignored) */
        b->hi[k] = k < dims ? hi : between(-5, 5);
    }
}

typedef struct sims {
    stn_sim *s, *shadow;
    int failed;
    int64_t done;
    const char *dir;
} sims;

/* One read or write, on the subject and (accepted) the shadow; a read compared with the shadow's. */
static int box_op(sims *S, int write) {
    char fb[64];
    int fok, bok;
    const char *field = field_name(&fok, fb, sizeof fb);
    stn_box b;
    random_box(&b, &bok);
    int64_t w[3] = {1, 1, 1}, cells = 1;
    for (int k = 0; k < dims; k++)
        if (bok)
            w[k] = b.hi[k] - b.lo[k], cells *= w[k];
    int layout = (int)between(0, 3); /* NULL strides, dense given, z fastest, x reversed */
    int64_t st[3] = {1, w[0], w[0] * w[1]};
    if (layout == 2)
        st[0] = w[1] * w[2], st[1] = w[2], st[2] = 1;
    char *buf = calloc((size_t)cells + 1, es), *want = calloc((size_t)cells + 1, es);
    char *base = buf;
    if (layout == 3 && w[0] > 0)
        st[0] = -1, base = buf + (size_t)(w[0] - 1) * es;
    for (size_t i = 0; write && i < (size_t)cells * es; i++)
        buf[i] = (char)(i % es == es - 1 ? 0x3f : rnd()); /* finite values of either type */
    int nobuf = between(0, 19) == 0, nobox = between(0, 19) == 0;
    int ok = fok && bok && !nobuf && !nobox && !S->failed;
    const int64_t *strides = layout ? st : NULL;
    int rc = write ? stn_sim_write(S->s, field, nobox ? NULL : &b, nobuf ? NULL : base, strides)
                   : stn_sim_read(S->s, field, nobox ? NULL : &b, nobuf ? NULL : base, strides);
    char what[160];
    snprintf(what, sizeof what, "%s %s [%lld,%lld,%lld)-[%lld,%lld,%lld) layout %d", write ? "write" : "read",
             field ? field : "NULL", (long long)b.lo[0], (long long)b.lo[1], (long long)b.lo[2],
             (long long)b.hi[0], (long long)b.hi[1], (long long)b.hi[2], layout);
    int bad = ok ? accepted(rc, what) : refused(rc, what);
    if (!bad && ok) {
        char *wbase = layout == 3 && w[0] > 0 ? want + (size_t)(w[0] - 1) * es : want;
        int rc2 = write ? stn_sim_write(S->shadow, field, &b, base, strides)
                        : stn_sim_read(S->shadow, field, &b, wbase, strides);
        bad = accepted(rc2, "the shadow's call");
        if (!bad && !write && memcmp(buf, want, (size_t)cells * es) != 0) {
            snprintf(fail_text, sizeof fail_text, "%s: not the shadow's values", what);
            bad = 1;
        }
    }
    free(buf);
    free(want);
    return bad;
}

static int advance_op(sims *S) {
    static const int64_t odd[] = {-1, INT64_MIN, INT64_MAX, STN_MAX_STEPS + 1, -STN_MAX_STEPS};
    int64_t k = between(0, 9) < 7 ? between(0, 3) : 0;
    int ok = !S->failed;
    switch (between(0, 9)) {
    case 0:
        k = odd[between(0, 4)], ok = 0;
        break;
    case 1:
        k = INT64_MAX - S->done + between(1, 3), ok = 0; /* the sum overflows */
        break;
    case 2:
        k = STN_MAX_STEPS - S->done + between(1, 3), ok = 0; /* one past the bound */
        break;
    default:
        break;
    }
    char what[64];
    snprintf(what, sizeof what, "advance %lld after %lld", (long long)k, (long long)S->done);
    int rc = stn_sim_advance(S->s, k);
    if (ok ? accepted(rc, what) : refused(rc, what))
        return 1;
    if (ok) {
        if (accepted(stn_sim_advance(S->shadow, k), "the shadow's advance"))
            return 1;
        S->done += k;
    }
    if (stn_sim_steps_done(S->s) != S->done)
        FAIL("%s: steps_done %lld, not %lld", what, (long long)stn_sim_steps_done(S->s), (long long)S->done);
    return 0;
}

/* A checkpoint to a good folder (then a restart from it, in-core with the checkpoint's size, compared
 * level by level with the shadow) or a bad one: NULL, "", a folder under a regular file. */
static int checkpoint_op(sims *S) {
    char good[4200], file[4300];
    snprintf(good, sizeof good, "%s/ck%d", S->dir, op);
    snprintf(file, sizeof file, "%s/plain", good);
    int which = (int)between(0, 3), ok = which == 3 && !S->failed;
    if (which == 2) {
        mkdir(good, 0777);
        close(open(file, O_CREAT | O_WRONLY, 0644));
        strcat(file, "/x");
    }
    int rc = stn_sim_checkpoint(S->s, which == 0 ? NULL : which == 1 ? "" : which == 2 ? file : good);
    if (ok ? accepted(rc, "checkpoint") : refused(rc, "checkpoint"))
        return 1;
    if (!ok)
        return 0;
    stn_sim *r;
    const char *more[] = {"--mode", "incore", "--quiet"};
    if (accepted(stn_sim_restart(D, good, 3, more, &r), "restart"))
        return 1;
    int64_t cells = n[0] * n[1] * n[2];
    char *a = malloc((size_t)cells * es), *b = malloc((size_t)cells * es);
    stn_box all = {{0, 0, 0}, {n[0], n[1], n[2]}};
    int bad = 0;
    for (int f = 0; !bad && f < D->nfields; f++)
        for (int l = 0; !bad && l < D->fields[f].levels; l++) {
            char name[80];
            snprintf(name, sizeof name, "%s%s", D->fields[f].name, l ? ".prev" : "");
            bad = accepted(stn_sim_read(r, name, &all, a, NULL), "read the restart") ||
                  accepted(stn_sim_read(S->shadow, name, &all, b, NULL), "read the shadow");
            if (!bad && memcmp(a, b, (size_t)cells * es) != 0) {
                snprintf(fail_text, sizeof fail_text, "restart from %s: %s is not the shadow's", good, name);
                bad = 1;
            }
        }
    free(a);
    free(b);
    stn_sim_discard(r);
    return bad;
}

static int report_op(sims *S) {
    char path[4200];
    int nullp = between(0, 4) == 0, nodir = between(0, 1);
    snprintf(path, sizeof path, "%s/%s", S->dir, nodir ? "no/such/folder/r.json" : "r.json");
    int rc = stn_sim_report(S->s, nullp ? NULL : path);
    return nullp || nodir ? refused(rc, "report") : accepted(rc, "report");
}

static int field_op(sims *S) {
    int fok, f = -1, l = -1;
    char fb[64];
    const char *name = field_name(&fok, fb, sizeof fb);
    int rc = stn_sim_field(S->s, name, &f, &l);
    return fok ? accepted(rc, "stn_sim_field") : refused(rc, "stn_sim_field");
}

/* Every call on a NULL simulation is refused, saying so. */
static int null_calls(void) {
    stn_box b = {{0, 0, 0}, {1, 1, 1}};
    double x[8];
    int f, l;
    int rcs[8] = {stn_sim_advance(NULL, 1),
                  stn_sim_write(NULL, D->fields[0].name, &b, x, NULL),
                  stn_sim_read(NULL, D->fields[0].name, &b, x, NULL),
                  stn_sim_checkpoint(NULL, "x"),
                  stn_sim_report(NULL, "x"),
                  stn_sim_field(NULL, D->fields[0].name, &f, &l),
                  (int)stn_sim_steps_done(NULL),
                  stn_sim_open(D, 0, NULL, NULL)};
    for (int k = 0; k < 8; k++)
        if (rcs[k] != -EINVAL || !strstr(stn_errmsg(), "NULL"))
            FAIL("call %d on NULL: %d (%s)", k, rcs[k], stn_errmsg());
    stn_sim_discard(NULL);
    return stn_sim_close(NULL) != 0;
}

/* Cut every scratch file in dir short (the next sweep's reads come back short). */
static void cut_scratch(const char *dir) {
    DIR *dp = opendir(dir);
    struct dirent *e;
    char path[4400];
    while (dp && (e = readdir(dp)))
        if (strstr(e->d_name, ".grid")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (truncate(path, 0) != 0)
                perror(path);
        }
    if (dp)
        closedir(dp);
}

/* The shadow's first field (current level), dense, to DIR/shadow.raw. */
static void save_shadow(sims *S) {
    int64_t cells = n[0] * n[1] * n[2];
    char *a = malloc((size_t)cells * es), path[4200];
    stn_box all = {{0, 0, 0}, {n[0], n[1], n[2]}};
    snprintf(path, sizeof path, "%s/shadow.raw", S->dir);
    FILE *fp = fopen(path, "wb");
    if (fp && stn_sim_read(S->shadow, D->fields[0].name, &all, a, NULL) == 0)
        fwrite(a, es, (size_t)cells, fp);
    if (fp)
        fclose(fp);
    free(a);
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--size") != 0) {
        fprintf(stderr, "usage: misuse SEED OPS DIR --size X,Y,Z [OPTION ...]\n");
        return 2;
    }
    rng = strtoull(argv[1], NULL, 0);
    int ops = atoi(argv[2]), ooc = 0;
    sims S = {0};
    S.dir = argv[3];
    D = API(program)();
    dims = stn_dims(D);
    es = (size_t)D->elem_size;
    const char **opts = (const char **)(argv + 4);
    int nopts = argc - 4;
    sscanf(opts[1], "%lld,%lld,%lld", (long long *)&n[0], (long long *)&n[1], (long long *)&n[2]);
    for (int i = 0; i < nopts; i++)
        ooc |= strcmp(opts[i], "ooc") == 0;
    const char *shadow_opts[] = {"--size", opts[1], "--mode", "incore", "--quiet"};
    if (accepted(stn_sim_open(D, nopts, opts, &S.s), "open") ||
        accepted(stn_sim_open(D, 5, shadow_opts, &S.shadow), "open the shadow") || null_calls()) {
        fprintf(stderr, "misuse: seed %s: %s\n", argv[1], fail_text);
        return 1;
    }
    int cut_at = rng % 2 == 0 ? ops * 2 / 3 : -1; /* even seeds: the failure path */
    for (op = 0; op < ops; op++) {
        int kind = op == cut_at ? 18 : (int)between(0, 18), bad;
        if (kind < 6)
            bad = advance_op(&S);
        else if (kind < 10)
            bad = box_op(&S, 0);
        else if (kind < 14)
            bad = box_op(&S, 1);
        else if (kind < 15)
            bad = checkpoint_op(&S);
        else if (kind < 16)
            bad = report_op(&S);
        else if (kind < 18)
            bad = field_op(&S);
        else if (kind == 18 && ooc && op == cut_at) { /* scratch files cut short, after a sweep */
            bad = S.done ? 0
                         : accepted(stn_sim_advance(S.s, 1), "advance 1") ||
                               accepted(stn_sim_advance(S.shadow, 1), "advance 1");
            S.done += S.done ? 0 : 1;
            cut_scratch(S.dir);
            bad = bad || refused(stn_sim_advance(S.s, 1), "an advance over scratch files cut short");
            S.failed = 1;
        } else {
            bad = stn_sim_steps_done(S.s) != S.done;
            if (bad)
                snprintf(fail_text, sizeof fail_text, "steps_done %lld, not %lld",
                         (long long)stn_sim_steps_done(S.s), (long long)S.done);
        }
        if (bad) {
            fprintf(stderr, "misuse: seed %s, op %d: %s\n", argv[1], op, fail_text);
            return 1;
        }
    }
    save_shadow(&S);
    int rc = stn_sim_close(S.s);
    stn_sim_close(S.shadow);
    if (S.failed ? rc == 0 : rc != 0) {
        fprintf(stderr, "misuse: seed %s: close returned %d after %s (%s)\n", argv[1], rc,
                S.failed ? "a failed advance" : "no failure", stn_errmsg());
        return 1;
    }
    printf("misuse: seed %s: %d ops, %d refused, %lld steps, %s\n", argv[1], ops, nrefused, (long long)S.done,
           S.failed ? "an advance failed over files cut short" : "closed");
    return 0;
}
