/* checkpoint.c -- a checkpoint's manifest, DIR/NAME.checkpoint.json (docs/embedding.md,
 * "Checkpoints"): written last by stn_sim_checkpoint, after every level's .npy, and read by
 * stn_sim_restart.  {"stencil": NAME, "steps_done": N, "size": [X, Y, Z], "init": ["LEVEL=PATH", ...]}
 * with PATH = DIR/LEVEL.npy; strings are JSON-escaped, so any folder name round-trips. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ writing */

/* A growing text; rc -ENOMEM once an append failed. */
typedef struct sbuf {
    char *b;
    size_t len, cap;
    int rc;
} sbuf;

static char *room(sbuf *o, size_t more) {
    if (o->rc == 0 && o->len + more + 1 > o->cap) {
        size_t cap = 2 * (o->len + more + 1);
        char *b = realloc(o->b, cap);
        if (b)
            o->b = b, o->cap = cap;
        else
            o->rc = -ENOMEM;
    }
    return o->rc ? NULL : o->b + o->len;
}

static void put(sbuf *o, const char *s) {
    size_t n = strlen(s);
    char *at = room(o, n);
    if (at)
        memcpy(at, s, n + 1), o->len += n;
}

/* s as a JSON string, quotes included. */
static void put_str(sbuf *o, const char *s) {
    char *at = room(o, 6 * strlen(s) + 2), *w = at;
    if (!at)
        return;
    *w++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c == '"' || *c == '\\')
            *w++ = '\\', *w++ = (char)*c;
        else if (*c < 0x20)
            w += sprintf(w, "\\u%04x", *c);
        else
            *w++ = (char)*c;
    *w++ = '"';
    *w = '\0';
    o->len += (size_t)(w - at);
}

int stn_ckpt_write(const char *dir, const char *name, int64_t steps_done, const int64_t size[3], int nlevels,
                   const char *const *levels) {
    char path[4096], num[160];
    if (snprintf(path, sizeof path, "%s/%s.checkpoint.json", dir, name) >= (int)sizeof path)
        return stn_error(-ENAMETOOLONG, "checkpoint: the folder name '%s' is too long", dir);
    sbuf o = {0};
    put(&o, "{\"stencil\": ");
    put_str(&o, name);
    snprintf(num, sizeof num,
             ", \"steps_done\": %" PRId64 ", \"size\": [%" PRId64 ", %" PRId64 ", %" PRId64
             "],\n \"init\": [",
             steps_done, size[0], size[1], size[2]);
    put(&o, num);
    for (int k = 0; k < nlevels; k++) {
        char *item = NULL;
        if (asprintf(&item, "%s=%s/%s.npy", levels[k], dir, levels[k]) < 0)
            o.rc = -ENOMEM, item = NULL;
        put(&o, k ? ", " : "");
        put_str(&o, item ? item : "");
        free(item);
    }
    put(&o, "]}\n");
    int rc = o.rc;
    stn_afile af;
    if (rc == 0)
        rc = stn_afile_open(&af, path, 0);
    if (rc == 0) {
        rc = stn_afile_write(&af, o.b, o.len);
        rc = rc ? (stn_afile_abort(&af), rc) : stn_afile_commit(&af);
    }
    free(o.b);
    return rc ? stn_error(rc, "checkpoint: cannot write '%s': %s", path,
                          rc == -ENOMEM ? "out of memory" : stn_errmsg())
              : 0;
}

/* ------------------------------------------------------------------ reading */

typedef struct jp {
    const char *s, *path;
    size_t i, n;
    int rc;
} jp;

static int jp_fail(jp *p, const char *what) {
    if (p->rc == 0)
        p->rc = stn_error(-EINVAL, "'%s' is not a checkpoint manifest: %s at byte %zu", p->path, what, p->i);
    return p->rc;
}

static void ws(jp *p) {
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]))
        p->i++;
}

static int eat(jp *p, char c) {
    ws(p);
    if (p->i < p->n && p->s[p->i] == c) {
        p->i++;
        return 1;
    }
    return 0;
}

/* A JSON string, unescaped (\uXXXX below 0x80 only: the writer escapes control characters alone). */
static char *jstr(jp *p) {
    if (!eat(p, '"'))
        return jp_fail(p, "a string expected"), NULL;
    char *out = malloc(p->n - p->i + 1), *o = out;
    if (!out)
        return p->rc = stn_error(-ENOMEM, "out of memory"), NULL;
    while (p->i < p->n && p->s[p->i] != '"') {
        char c = p->s[p->i++];
        if (c == '\\' && p->i < p->n) {
            char e = p->s[p->i++];
            unsigned v = 0;
            if (e == 'u' && p->i + 4 <= p->n && sscanf(p->s + p->i, "%4x", &v) == 1 && v > 0 && v < 0x80)
                c = (char)v, p->i += 4;
            else if (strchr("\"\\/", e))
                c = e;
            else
                c = e == 'n'   ? '\n'
                    : e == 't' ? '\t'
                    : e == 'r' ? '\r'
                    : e == 'b' ? '\b'
                    : e == 'f' ? '\f'
                               : 0;
            if (!c) {
                free(out);
                return jp_fail(p, "an escape it does not write"), NULL;
            }
        }
        *o++ = c;
    }
    *o = '\0';
    if (!eat(p, '"')) {
        free(out);
        return jp_fail(p, "an unterminated string"), NULL;
    }
    return out;
}

static int64_t jint(jp *p) {
    ws(p);
    char *end;
    errno = 0;
    long long v = p->i < p->n ? strtoll(p->s + p->i, &end, 10) : 0;
    if (p->i >= p->n || end == p->s + p->i || errno || v < 0)
        return jp_fail(p, "a non-negative integer expected"), -1;
    p->i = (size_t)(end - p->s);
    return v;
}

void stn_ckpt_free(stn_ckpt *ck) {
    for (int k = 0; k < ck->nlevels; k++)
        free(ck->levels[k]);
    free(ck->levels);
    ck->levels = NULL;
    ck->nlevels = 0;
}

/* The "init" list: each LEVEL=PATH's LEVEL. */
static void read_init(jp *p, stn_ckpt *ck) {
    if (!eat(p, '['))
        return (void)jp_fail(p, "\"init\" is not a list");
    for (int first = 1; p->rc == 0 && !eat(p, ']'); first = 0) {
        if (!first && !eat(p, ','))
            return (void)jp_fail(p, "',' or ']' expected");
        char *item = jstr(p), *eq = item ? strchr(item, '=') : NULL;
        char **more = eq ? realloc(ck->levels, (size_t)(ck->nlevels + 1) * sizeof *more) : NULL;
        if (!more) {
            free(item);
            return (void)(item ? jp_fail(p, "an \"init\" item is not LEVEL=FILE") : 0);
        }
        *eq = '\0';
        ck->levels = more;
        ck->levels[ck->nlevels++] = item;
    }
}

int stn_ckpt_read(const char *dir, const char *name, stn_ckpt *ck) {
    memset(ck, 0, sizeof *ck);
    char path[4096];
    if (!dir || !*dir)
        return stn_error(-EINVAL, "restart: no checkpoint folder");
    snprintf(path, sizeof path, "%s/%s.checkpoint.json", dir, name);
    int fd = stn_open_input(path);
    if (fd < 0)
        return stn_error(
            fd, "restart: %s (a folder holds a complete checkpoint of %s once its manifest is written)",
            stn_errmsg(), name);
    struct stat sb;
    char *text = fstat(fd, &sb) == 0 && sb.st_size < (64 << 20) ? malloc((size_t)sb.st_size + 1) : NULL;
    int rc = text ? stn_pread_full(fd, text, (size_t)sb.st_size, 0, path)
                  : stn_error(-EFBIG, "'%s': too large", path);
    close(fd);
    jp p = {text, path, 0, text ? (size_t)sb.st_size : 0, rc};
    int seen = 0; /* bits: stencil, steps_done, size, init */
    if (p.rc == 0 && !eat(&p, '{'))
        jp_fail(&p, "'{' expected");
    for (int first = 1; p.rc == 0 && !eat(&p, '}'); first = 0) {
        char *key = first || eat(&p, ',') ? jstr(&p) : (jp_fail(&p, "',' or '}' expected"), NULL);
        if (key && !eat(&p, ':'))
            jp_fail(&p, "':' expected");
        if (p.rc == 0 && strcmp(key, "stencil") == 0) {
            char *v = jstr(&p);
            if (v && strcmp(v, name) != 0)
                p.rc = stn_error(-EINVAL, "restart: '%s' is a checkpoint of %s, not of %s", path, v, name);
            free(v);
            seen |= 1;
        } else if (p.rc == 0 && strcmp(key, "steps_done") == 0) {
            ck->steps_done = jint(&p);
            seen |= 2;
        } else if (p.rc == 0 && strcmp(key, "size") == 0) {
            for (int k = 0; p.rc == 0 && k < 3; k++)
                if (!eat(&p, k ? ',' : '[') || (ck->size[k] = jint(&p)) < 0)
                    jp_fail(&p, "\"size\" is not a list of three sizes");
            if (p.rc == 0 && !eat(&p, ']'))
                jp_fail(&p, "\"size\" is not a list of three sizes");
            seen |= 4;
        } else if (p.rc == 0 && strcmp(key, "init") == 0) {
            read_init(&p, ck);
            seen |= 8;
        } else if (p.rc == 0) {
            jp_fail(&p, "a key it does not write");
        }
        free(key);
    }
    if (p.rc == 0 && seen != 15)
        jp_fail(&p, "\"stencil\", \"steps_done\", \"size\" or \"init\" missing");
    free(text);
    if (p.rc)
        stn_ckpt_free(ck);
    return p.rc;
}
