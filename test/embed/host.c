/* host.c -- a host program that drives one stencil through its generated NAME_api.h, for the
 * embedding tests (test/python/test_embed.py).  Built with -DSTN=NAME -include NAME_api.h.
 *
 *   host [CONFIG ...] -- [OPS ...]
 *
 * CONFIG: size=X,Y,Z  steps=N  mode=M  mem=M  dir=D  report=F  threads=N  quiet  (the typed
 * config's members), restart=DIR (NAME_restart from that checkpoint instead of NAME_open), then
 * any command-line options for config.options.  OPS, in order:
 *   advance N
 *   read FIELD LO HI FILE      write FIELD LO HI FILE     (LO, HI: x,y,z; FILE: raw elements, dense)
 *   readT FIELD LO HI FILE     (read into a buffer with the axes reversed: strides z-fastest)
 *   checkpoint DIR
 *   steps-done N               (NAME_steps_done must be N)
 *   crash                      (_exit(9) at once: no close, as a killed host)
 *   expect-fail OP ...         (the next op must fail; its message is printed)
 * Exit 0, or 1 with the failing call's message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(x) CAT(STN, CAT(_, x))

typedef API(real) real;

static void parse3(const char *s, int64_t v[3]) {
    long long a = 0, b = 0, c = 0;
    int n = sscanf(s, "%lld,%lld,%lld", &a, &b, &c);
    v[0] = a, v[1] = n > 1 ? b : 0, v[2] = n > 2 ? c : 0;
}

static int box_of(const char *lo, const char *hi, API(box) * b, int64_t *n) {
    parse3(lo, b->lo);
    parse3(hi, b->hi);
    *n = 1;
    for (int k = 0; k < 3; k++)
        if (b->hi[k] > b->lo[k])
            *n *= b->hi[k] - b->lo[k];
    return 0;
}

/* The options before "--": the typed config's fields by name, the rest passed on as options (opts,
 * NULL-terminated); *restart: a checkpoint folder to restart from.  Returns the index of "--". */
static int parse_config(int argc, char **argv, API(config) * c, const char **opts, const char **restart) {
    int nopt = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        if (strncmp(a, "size=", 5) == 0) {
            int64_t v[3];
            parse3(a + 5, v);
            for (int k = 0; k < (int)(sizeof c->size / sizeof c->size[0]); k++)
                c->size[k] = v[k];
        } else if (strncmp(a, "steps=", 6) == 0)
            c->steps = atoll(a + 6);
        else if (strncmp(a, "mode=", 5) == 0)
            c->mode = a + 5;
        else if (strncmp(a, "mem=", 4) == 0)
            c->mem = a + 4;
        else if (strncmp(a, "dir=", 4) == 0)
            c->dir = a + 4;
        else if (strncmp(a, "report=", 7) == 0)
            c->report = a + 7;
        else if (strncmp(a, "threads=", 8) == 0)
            c->threads = atoi(a + 8);
        else if (strncmp(a, "restart=", 8) == 0)
            *restart = a + 8;
        else if (strcmp(a, "quiet") == 0)
            c->quiet = 1;
        else if (nopt < 255)
            opts[nopt++] = a;
    }
    opts[nopt] = NULL;
    c->options = opts;
    return i;
}

/* The ops read, readT and write: FIELD LO HI PATH (the box's elements from or to a raw file). */
static int box_op(API(sim) * s, const char *op, char **arg) {
    const char *field = arg[0], *path = arg[3];
    API(box) b;
    int64_t n;
    box_of(arg[1], arg[2], &b, &n);
    real *buf = calloc((size_t)n + 1, sizeof *buf);
    int rc = 0;
    if (op[0] == 'w') {
        FILE *fp = fopen(path, "rb");
        if (!fp || fread(buf, sizeof *buf, (size_t)n, fp) != (size_t)n) {
            fprintf(stderr, "%s: cannot read %lld elements\n", path, (long long)n);
            exit(1);
        }
        fclose(fp);
        rc = API(write)(s, field, &b, buf, NULL);
    } else {
        int64_t w[3];
        for (int k = 0; k < 3; k++)
            w[k] = b.hi[k] > b.lo[k] ? b.hi[k] - b.lo[k] : 1;
        const int64_t st[3] = {w[1] * w[2], w[2], 1}; /* x slowest: the buffer is (x, y, z) */
        rc = API(read)(s, field, &b, buf, op[4] == 'T' ? st : NULL);
        FILE *fp = rc == 0 ? fopen(path, "wb") : NULL;
        if (fp) {
            fwrite(buf, sizeof *buf, (size_t)n, fp);
            fclose(fp);
        }
    }
    free(buf);
    return rc;
}

int main(int argc, char **argv) {
    API(config) c = API(config_default)();
    const char *opts[256], *restart = NULL;
    int i = parse_config(argc, argv, &c, opts, &restart);
    API(sim) *s = NULL;
    if ((restart ? API(restart)(&c, restart, &s) : API(open)(&c, &s)) != 0) {
        fprintf(stderr, "open: %s\n", API(errmsg)());
        return 1;
    }
    int expect_fail = 0;
    for (i++; i < argc; i++) {
        const char *op = argv[i];
        int rc = 0;
        if (strcmp(op, "expect-fail") == 0) {
            expect_fail = 1;
            continue;
        } else if (strcmp(op, "advance") == 0 && i + 1 < argc) {
            rc = API(advance)(s, atoll(argv[++i]));
        } else if (strcmp(op, "checkpoint") == 0 && i + 1 < argc) {
            rc = API(checkpoint)(s, argv[++i]);
        } else if (strcmp(op, "steps-done") == 0 && i + 1 < argc) {
            long long want = atoll(argv[++i]), got = (long long)API(steps_done)(s);
            if (got != want) {
                fprintf(stderr, "host: steps_done is %lld, not %lld\n", got, want);
                return 1;
            }
        } else if (strcmp(op, "crash") == 0) {
            fflush(stdout);
            _exit(9);
        } else if ((strcmp(op, "read") == 0 || strcmp(op, "write") == 0 || strcmp(op, "readT") == 0) &&
                   i + 4 < argc) {
            rc = box_op(s, op, argv + i + 1);
            i += 4;
        } else {
            fprintf(stderr, "host: bad op '%s'\n", op);
            return 2;
        }
        if (expect_fail) {
            if (rc == 0) {
                fprintf(stderr, "host: '%s' succeeded where it should fail\n", op);
                return 1;
            }
            printf("failed as expected: %s\n", API(errmsg)());
            expect_fail = 0;
            continue;
        }
        if (rc) {
            fprintf(stderr, "%s: %s\n", op, API(errmsg)());
            API(close)(s);
            return 1;
        }
    }
    if (API(close)(s) != 0) {
        fprintf(stderr, "close: %s\n", API(errmsg)());
        return 1;
    }
    printf("steps done\n");
    return 0;
}
