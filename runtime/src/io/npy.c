/* npy.c -- NumPy .npy files: the header parser, the checks, whole-array loads and atomic writes.
 *
 * Format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte, the
 * header length (uint16 little-endian in 1.0, uint32 in 2.0 and 3.0), then the header: a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with
 * spaces and ending in '\n'.  The data follows it directly. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_NDIM 8
/* numpy itself refuses headers above 10000 bytes unless told otherwise; be more generous. */
#define NPY_MAX_HEADER (1u << 20)

/* ------------------------------------------------------------------ descr and shape text */

int stn_npy_elem_size(const char *descr) {
    if (!descr || strlen(descr) < 3 || !strchr("<>|=", descr[0]) || !strchr("fiucb", descr[1]))
        return 0;
    char *end;
    long n = strtol(descr + 2, &end, 10);
    return *end == '\0' && n > 0 && n <= 64 ? (int)n : 0;
}

/* "float32", "big-endian float64", "int64", ... for hints. */
static const char *descr_meaning(const char *descr, char *buf, size_t n) {
    int size = stn_npy_elem_size(descr);
    if (!size) {
        snprintf(buf, n, "a type this runtime does not read");
        return buf;
    }
    const char *kind = descr[1] == 'f'   ? "float"
                       : descr[1] == 'i' ? "int"
                       : descr[1] == 'u' ? "uint"
                       : descr[1] == 'c' ? "complex"
                                         : "bool";
    const char *order = descr[0] == '>' ? "big-endian " : "";
    if (descr[1] == 'b')
        snprintf(buf, n, "bool");
    else
        snprintf(buf, n, "%s%s%d", order, kind, size * 8);
    return buf;
}

/* Python's repr of a shape tuple: "()", "(5,)", "(8, 10, 12)". */
static const char *fmt_shape(char *buf, size_t n, int ndim, const int64_t *shape) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (k < n)
        snprintf(buf + k, n - k, ndim == 1 ? ",)" : ")");
    return buf;
}

/* The product of the shape times the element size, or -1 if it overflows. */
static int64_t array_bytes(int ndim, const int64_t *shape, int elem) {
    int64_t n = elem;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || (shape[i] > 0 && n > INT64_MAX / shape[i]))
            return -1;
        n *= shape[i];
    }
    return n;
}

/* ------------------------------------------------------------------ the header dict parser */

typedef struct hparser {
    const char *s; /* the header text (not NUL-terminated within n) */
    size_t n, i;
    const char *path;
} hparser;

/* The header as printable text for messages: control characters become '?', long ones are cut. */
static const char *header_excerpt(const hparser *p, char *out, size_t cap) {
    size_t n = p->n;
    while (n > 0 && (p->s[n - 1] == ' ' || p->s[n - 1] == '\n'))
        n--;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < cap; i++) {
        unsigned char c = (unsigned char)p->s[i];
        out[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (k + 4 >= cap && n > k)
        memcpy(out + k, "...", 3), k += 3;
    out[k] = '\0';
    return out;
}

static int hp_fail(const hparser *p, const char *what) {
    char ex[200];
    return stn_error(-EINVAL, "'%s' has a malformed .npy header: %s at character %zu of %s", p->path, what,
                     p->i, header_excerpt(p, ex, sizeof ex));
}

static void hp_ws(hparser *p) {
    while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]) && p->s[p->i] != '\0')
        p->i++;
}

static int hp_peek(hparser *p) { return p->i < p->n ? (unsigned char)p->s[p->i] : -1; }

static int hp_expect(hparser *p, char c, const char *what) {
    hp_ws(p);
    if (hp_peek(p) != (unsigned char)c)
        return hp_fail(p, what);
    p->i++;
    return 0;
}

/* A quoted Python string without escapes (numpy never writes any in these keys/values). */
static int hp_string(hparser *p, char *out, size_t cap, const char *what) {
    hp_ws(p);
    int q = hp_peek(p);
    if (q != '\'' && q != '"')
        return hp_fail(p, what);
    size_t start = ++p->i;
    while (p->i < p->n && p->s[p->i] != q && p->s[p->i] != '\\')
        p->i++;
    if (p->i >= p->n)
        return hp_fail(p, "unterminated string");
    if (p->s[p->i] == '\\')
        return hp_fail(p, "escape sequences in strings are not supported");
    size_t len = p->i - start;
    p->i++;
    if (len >= cap)
        return hp_fail(p, "string too long");
    memcpy(out, p->s + start, len);
    out[len] = '\0';
    return 0;
}

static int hp_word(hparser *p, const char *w) {
    size_t n = strlen(w);
    if (p->i + n <= p->n && memcmp(p->s + p->i, w, n) == 0) {
        p->i += n;
        return 1;
    }
    return 0;
}

static int hp_bool(hparser *p, int *out) {
    hp_ws(p);
    if (hp_word(p, "True"))
        *out = 1;
    else if (hp_word(p, "False"))
        *out = 0;
    else
        return hp_fail(p, "'fortran_order' must be True or False");
    return 0;
}

/* A non-negative integer, with the 'L' suffix Python 2 wrote for longs. */
static int hp_int(hparser *p, int64_t *out) {
    hp_ws(p);
    int64_t v = 0;
    size_t start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        int d = p->s[p->i++] - '0';
        if (v > (INT64_MAX - d) / 10)
            return hp_fail(p, "dimension too large");
        v = v * 10 + d;
    }
    if (p->i == start)
        return hp_fail(p, "expected a dimension (a non-negative integer)");
    if (p->i < p->n && p->s[p->i] == 'L')
        p->i++;
    *out = v;
    return 0;
}

/* "(a, b, c)", "(a,)", "()", with optional trailing comma and any spaces. */
static int hp_shape(hparser *p, stn_npy_header *h) {
    int rc = hp_expect(p, '(', "'shape' must be a tuple");
    h->ndim = 0;
    while (rc == 0) {
        hp_ws(p);
        if (hp_peek(p) == ')') {
            p->i++;
            return 0;
        }
        if (h->ndim == NPY_MAX_NDIM)
            return hp_fail(p, "more than 8 dimensions");
        rc = hp_int(p, &h->shape[h->ndim++]);
        if (rc)
            return rc;
        hp_ws(p);
        if (hp_peek(p) == ',')
            p->i++;
        else if (hp_peek(p) != ')')
            return hp_fail(p, "expected ',' or ')' in 'shape'");
    }
    return rc;
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

static int hp_entry(hparser *p, stn_npy_header *h, int *seen) {
    char key[32];
    int rc = hp_string(p, key, sizeof key, "expected a quoted key");
    if (rc == 0)
        rc = hp_expect(p, ':', "expected ':' after the key");
    if (rc)
        return rc;
    int bit = strcmp(key, "descr") == 0           ? KEY_DESCR
              : strcmp(key, "fortran_order") == 0 ? KEY_FORTRAN
              : strcmp(key, "shape") == 0         ? KEY_SHAPE
                                                  : 0;
    if (!bit) {
        char what[160];
        snprintf(what, sizeof what,
                 "unexpected key '%s' (a .npy header has 'descr', 'fortran_order', 'shape')", key);
        return hp_fail(p, what);
    }
    if (*seen & bit)
        return hp_fail(p, "a key appears twice");
    *seen |= bit;
    if (bit == KEY_FORTRAN)
        return hp_bool(p, &h->fortran_order);
    if (bit == KEY_SHAPE)
        return hp_shape(p, h);
    hp_ws(p);
    if (hp_peek(p) == '[')
        return stn_error(-EINVAL,
                         "'%s' holds a structured array (its descr is a list of fields); only plain arrays "
                         "of the grid's element type can be read",
                         p->path);
    return hp_string(p, h->descr, sizeof h->descr, "'descr' must be a short quoted string such as '<f8'");
}

static int parse_dict(hparser *p, stn_npy_header *h) {
    int seen = 0;
    int rc = hp_expect(p, '{', "expected '{'");
    while (rc == 0) {
        hp_ws(p);
        if (hp_peek(p) == '}')
            break;
        rc = hp_entry(p, h, &seen);
        if (rc)
            return rc;
        hp_ws(p);
        if (hp_peek(p) == ',')
            p->i++;
        else if (hp_peek(p) != '}')
            return hp_fail(p, "expected ',' or '}'");
    }
    if (rc)
        return rc;
    p->i++; /* the '}' */
    hp_ws(p);
    if (p->i != p->n)
        return hp_fail(p, "unexpected text after the closing '}'");
    if (seen != (KEY_DESCR | KEY_FORTRAN | KEY_SHAPE))
        return hp_fail(p, !(seen & KEY_DESCR)     ? "the key 'descr' is missing"
                          : !(seen & KEY_FORTRAN) ? "the key 'fortran_order' is missing"
                                                  : "the key 'shape' is missing");
    return 0;
}

/* ------------------------------------------------------------------ reading */

/* The first bytes of a file, escaped, for "not a .npy file" messages. */
static const char *escape_bytes(const unsigned char *b, size_t n, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && k + 5 < cap; i++)
        k += (size_t)snprintf(out + k, cap - k,
                              b[i] >= 0x20 && b[i] < 0x7f && b[i] != '\\' ? "%c" : "\\x%02x", b[i]);
    return out;
}

static int not_npy(const char *path, const unsigned char *pre, size_t n) {
    char ex[64];
    const char *hint = n >= 4 && memcmp(pre, "PK\x03\x04", 4) == 0
                           ? " (it looks like a zip archive, perhaps an .npz: save one array with numpy.save)"
                           : "";
    return stn_error(
        -EINVAL, "'%s' is not a .npy file: it does not start with \\x93NUMPY (its first bytes are \"%s\")%s",
        path, escape_bytes(pre, n, ex, sizeof ex), hint);
}

/* The version bytes and the header length; sets *start to the header's offset. */
static int read_preamble(const char *path, int fd, int64_t size, uint32_t *hlen, int64_t *start) {
    unsigned char pre[12];
    size_t npre = size < 12 ? (size_t)size : 12;
    int rc = stn_pread_full(fd, pre, npre, 0, path);
    if (rc)
        return rc;
    if (npre < NPY_MAGIC_LEN || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return not_npy(path, pre, npre);
    int major = npre > 6 ? pre[6] : -1, minor = npre > 7 ? pre[7] : -1;
    *start = major == 1 ? 10 : 12;
    if (npre < (size_t)*start || major < 1)
        return stn_error(-EINVAL, "'%s' is truncated: it has only %lld bytes, not even a whole .npy preamble",
                         path, (long long)size);
    if (major > 3)
        return stn_error(-EINVAL,
                         "'%s' is .npy format version %d.%d; this runtime reads versions 1.0, 2.0 and 3.0",
                         path, major, minor);
    *hlen = major == 1 ? (uint32_t)pre[8] | (uint32_t)pre[9] << 8
                       : (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 |
                             (uint32_t)pre[11] << 24;
    if (*hlen > NPY_MAX_HEADER)
        return stn_error(-EINVAL, "'%s' has a .npy header of %u bytes; more than 1 MiB is surely corrupt",
                         path, *hlen);
    if (*start + (int64_t)*hlen > size)
        return stn_error(-EINVAL,
                         "'%s' is truncated: its .npy header claims %u bytes but the file has only %lld",
                         path, *hlen, (long long)size);
    return 0;
}

int stn_npy_read_header(const char *path, int fd, stn_npy_header *h) {
    memset(h, 0, sizeof *h);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        return stn_error(stn_neg_errno(e), "cannot stat '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode))
        return stn_error(-EINVAL, "'%s' is not a regular file", path);
    h->file_size = (int64_t)sb.st_size;
    uint32_t hlen = 0;
    int64_t start = 0;
    int rc = read_preamble(path, fd, h->file_size, &hlen, &start);
    if (rc)
        return rc;
    char *text = malloc(hlen + 1u);
    if (!text)
        return stn_error(-ENOMEM, "out of memory reading the %u-byte header of '%s'", hlen, path);
    rc = stn_pread_full(fd, text, hlen, (uint64_t)start, path);
    if (rc == 0) {
        hparser p = {text, hlen, 0, path};
        rc = parse_dict(&p, h);
    }
    free(text);
    h->data_offset = start + hlen;
    return rc;
}

static int check_descr(const char *path, const stn_npy_header *h, const char *descr) {
    if (strcmp(h->descr, descr) == 0)
        return 0;
    char found[48];
    int bits = 8 * stn_npy_elem_size(descr);
    return stn_error(-EINVAL,
                     "'%s' holds '%s' (%s); this stencil is %c%d ('%s'): convert with a.astype('%s')", path,
                     h->descr, descr_meaning(h->descr, found, sizeof found), descr[1], bits, descr, descr);
}

static int check_shape(const char *path, const stn_npy_header *h, int ndim, const int64_t *shape) {
    int same = h->ndim == ndim;
    for (int i = 0; same && i < ndim; i++)
        same = h->shape[i] == shape[i];
    if (same)
        return 0;
    char found[200], want[200], grid[120] = "";
    if (ndim == 3)
        snprintf(grid, sizeof grid, " = (nz, ny, nx) for --size %lld,%lld,%lld", (long long)shape[2],
                 (long long)shape[1], (long long)shape[0]);
    else if (ndim == 2)
        snprintf(grid, sizeof grid, " = (ny, nx) for --size %lld,%lld", (long long)shape[1],
                 (long long)shape[0]);
    else if (ndim == 1)
        snprintf(grid, sizeof grid, " = (nx,) for --size %lld", (long long)shape[0]);
    return stn_error(-EINVAL, "'%s' has shape %s, but this grid needs %s%s", path,
                     fmt_shape(found, sizeof found, h->ndim, h->shape),
                     fmt_shape(want, sizeof want, ndim, shape), grid);
}

int stn_npy_check(const char *path, const stn_npy_header *h, const char *descr, int ndim,
                  const int64_t *shape) {
    int rc = check_descr(path, h, descr);
    if (rc)
        return rc;
    if (h->fortran_order)
        return stn_error(-EINVAL,
                         "'%s' is in Fortran order (fortran_order: True); save a C-order array: "
                         "np.save(path, np.ascontiguousarray(a))",
                         path);
    rc = check_shape(path, h, ndim, shape);
    if (rc)
        return rc;
    int64_t nbytes = array_bytes(ndim, shape, stn_npy_elem_size(descr));
    if (nbytes < 0 || nbytes > INT64_MAX - h->data_offset)
        return stn_error(-EOVERFLOW, "'%s': the array size overflows 64 bits", path);
    int64_t expected = h->data_offset + nbytes;
    if (h->file_size < expected)
        return stn_error(
            -EINVAL, "'%s' is truncated: expected %lld bytes (%lld of header + %lld of data), found %lld",
            path, (long long)expected, (long long)h->data_offset, (long long)nbytes, (long long)h->file_size);
    if (h->file_size > expected)
        return stn_error(
            -EINVAL,
            "'%s' has %lld bytes of trailing data after the array: expected %lld bytes (%lld of header "
            "+ %lld of data), found %lld",
            path, (long long)(h->file_size - expected), (long long)expected, (long long)h->data_offset,
            (long long)nbytes, (long long)h->file_size);
    return 0;
}

/* path opened for reading, its header read into *h and checked against descr and shape: the fd
 * (and *rc 0), or the fd and the error in *rc (the caller closes it), or a negative errno. */
static int open_checked(const char *path, const char *descr, int ndim, const int64_t *shape,
                        stn_npy_header *h, int *rc) {
    int fd = stn_open_input(path);
    if (fd < 0)
        return fd;
    *rc = stn_npy_read_header(path, fd, h);
    if (*rc == 0)
        *rc = stn_npy_check(path, h, descr, ndim, shape);
    return fd;
}

int stn_npy_load_part(const char *path, const char *descr, int ndim, const int64_t *shape, int64_t first,
                      int64_t count, void *dst, stn_stats *st) {
    double t0 = stn_now();
    stn_npy_header h;
    int rc, fd = open_checked(path, descr, ndim, shape, &h, &rc);
    if (fd < 0)
        return fd;
    int64_t slice = stn_npy_elem_size(descr);
    for (int k = 1; k < ndim; k++)
        slice *= shape[k];
    if (rc == 0 &&
        (first < 0 || count < 0 || first + count > (ndim > 0 ? shape[0] : 1))) /* (0d: one value) */
        rc = stn_error(-EINVAL, "'%s': slices [%lld, %lld) of %lld", path, (long long)first,
                       (long long)(first + count), (long long)(ndim > 0 ? shape[0] : 1));
    if (rc == 0) {
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        rc = stn_pread_parallel(fd, dst, (size_t)(count * slice), (uint64_t)(h.data_offset + first * slice),
                                path,
                                NULL); /* (several reads at once: the device's queue, not one readahead) */
    }
    close(fd);
    if (rc == 0 && st)
        st->bytes_read += (uint64_t)(count * slice);
    stn_stats_add_time(st, STN_PHASE_READ, t0);
    return rc;
}

int stn_npy_load_box(const char *path, const char *descr, int ndim, const int64_t *shape,
                     const int64_t box[2][3], void *dst, const int64_t dst_strides[2], stn_stats *st) {
    const int64_t *lo = box[0], *n = box[1], dsy = dst_strides[0], dsz = dst_strides[1];
    double t0 = stn_now();
    stn_npy_header h;
    int rc, fd = open_checked(path, descr, ndim, shape, &h, &rc);
    if (fd < 0)
        return fd;
    int64_t whole[3] = {1, 1, 1}; /* x, y, z */
    for (int k = 0; k < ndim; k++)
        whole[k] = shape[ndim - 1 - k];
    for (int k = 0; rc == 0 && k < 3; k++)
        if (lo[k] < 0 || n[k] < 0 || lo[k] + n[k] > whole[k])
            rc = stn_error(-EINVAL, "'%s': %c-indices [%lld, %lld) of %lld", path, "xyz"[k], (long long)lo[k],
                           (long long)(lo[k] + n[k]), (long long)whole[k]);
    size_t es = (size_t)stn_npy_elem_size(descr), row = (size_t)n[0] * es;
    uint64_t got = 0;
    for (int64_t z = 0; rc == 0 && z < n[2]; z++)
        for (int64_t y = 0; rc == 0 && y < n[1]; y++) {
            uint64_t cell = (uint64_t)(((lo[2] + z) * whole[1] + lo[1] + y) * whole[0] + lo[0]);
            rc = stn_pread_full(fd, (char *)dst + (size_t)(z * dsz + y * dsy) * es, row,
                                (uint64_t)h.data_offset + cell * es, path);
            got += rc == 0 ? row : 0;
        }
    close(fd);
    if (st)
        st->bytes_read += got;
    stn_stats_add_time(st, STN_PHASE_READ, t0);
    return rc;
}

int stn_npy_load(const char *path, const char *descr, int ndim, const int64_t *shape, void *dst,
                 stn_stats *st) {
    return stn_npy_load_part(path, descr, ndim, shape, 0, ndim > 0 ? shape[0] : 1, dst, st);
}

/* ------------------------------------------------------------------ writing */

struct stn_npy_writer {
    stn_afile af;
    uint64_t nbytes, written;
    uint64_t expect; /* the data bytes this process writes: nbytes, or its rank's part (MPI) */
};

/* Version 1.0 header padded with spaces to STN_NPY_DATA_OFFSET bytes, ending in '\n'. */
static int build_header(char *hdr, const char *path, const char *descr, int ndim, const int64_t *shape) {
    char dict[STN_NPY_DATA_OFFSET], sh[512];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
                       fmt_shape(sh, sizeof sh, ndim, shape));
    const int hlen = STN_NPY_DATA_OFFSET - 10;
    if (len < 0 || len >= hlen)
        return stn_error(-EINVAL, "cannot write '%s': the .npy header does not fit in %d bytes", path,
                         STN_NPY_DATA_OFFSET);
    memcpy(hdr, NPY_MAGIC "\x01\x00", 8);
    hdr[8] = (char)(hlen & 0xff);
    hdr[9] = (char)(hlen >> 8);
    memcpy(hdr + 10, dict, (size_t)len);
    memset(hdr + 10 + len, ' ', (size_t)(hlen - len - 1));
    hdr[STN_NPY_DATA_OFFSET - 1] = '\n';
    return 0;
}

int stn_npy_writer_open(const char *path, const char *descr, int ndim, const int64_t *shape,
                        stn_npy_writer **w) {
    *w = NULL;
    int elem = stn_npy_elem_size(descr);
    if (!elem || strlen(descr) >= sizeof(((stn_npy_header *)0)->descr))
        return stn_error(-EINVAL, "cannot write '%s': unsupported element type '%s'", path,
                         descr ? descr : "");
    if (ndim < 0 || ndim > NPY_MAX_NDIM)
        return stn_error(-EINVAL, "cannot write '%s': %d dimensions (at most %d)", path, ndim, NPY_MAX_NDIM);
    int64_t nbytes = array_bytes(ndim, shape, elem);
    if (nbytes < 0 || nbytes > INT64_MAX - STN_NPY_DATA_OFFSET)
        return stn_error(-EOVERFLOW,
                         "cannot write '%s': the array size overflows 64 bits (or a dimension is < 0)", path);
    char hdr[STN_NPY_DATA_OFFSET];
    int rc = build_header(hdr, path, descr, ndim, shape);
    if (rc)
        return rc;
    stn_npy_writer *nw = calloc(1, sizeof *nw);
    if (!nw)
        return stn_error(-ENOMEM, "out of memory opening '%s'", path);
    nw->nbytes = nw->expect = (uint64_t)nbytes;
    rc = stn_afile_open(&nw->af, path, STN_NPY_DATA_OFFSET + (uint64_t)nbytes);
    if (rc == 0)
        rc = stn_afile_write(&nw->af, hdr, sizeof hdr); /* the header is not data: not counted */
    if (rc) {
        stn_npy_writer_abort(nw);
        return rc;
    }
    *w = nw;
    return 0;
}

int stn_npy_writer_write(stn_npy_writer *w, const void *data, size_t nbytes, stn_stats *st) {
    if (nbytes > w->nbytes - w->written)
        return stn_error(-EINVAL,
                         "cannot write %zu more bytes to '%s': its array has %llu bytes and %llu are written",
                         nbytes, w->af.path, (unsigned long long)w->nbytes, (unsigned long long)w->written);
    double t0 = stn_now();
    off_t at = lseek(w->af.fd, 0, SEEK_CUR);
    int rc = 0;
    /* in pieces, each sent on as it is written (stn_afile_behind): a whole grid is not left in the cache */
    for (size_t done = 0, piece = (size_t)STN_AFILE_BEHIND / 4; rc == 0 && done < nbytes; done += piece) {
        size_t k = nbytes - done < piece ? nbytes - done : piece;
        rc = stn_afile_write(&w->af, (const char *)data + done, k);
        if (rc == 0 && at >= 0)
            rc = stn_afile_behind(&w->af, (uint64_t)at + done, k);
    }
    if (rc == 0) {
        w->written += nbytes;
        if (st)
            st->bytes_written += nbytes;
    }
    stn_stats_add_time(st, STN_PHASE_WRITE, t0);
    return rc;
}

int stn_npy_writer_pwrite(stn_npy_writer *w, const void *data, size_t nbytes, uint64_t off, stn_stats *st) {
    if (off > w->nbytes || nbytes > w->nbytes - off || nbytes > w->nbytes - w->written)
        return stn_error(-EINVAL,
                         "cannot write %zu bytes at data offset %llu of '%s': its array has %llu bytes, %llu "
                         "written",
                         nbytes, (unsigned long long)off, w->af.path, (unsigned long long)w->nbytes,
                         (unsigned long long)w->written);
    double t0 = stn_now();
    w->af.synced = 0;
    int rc = stn_pwrite_full(w->af.fd, data, nbytes, STN_NPY_DATA_OFFSET + off, w->af.tmp);
    if (rc)
        rc = stn_error(rc, "cannot write '%s': %s", w->af.path, stn_errmsg());
    else
        rc = stn_afile_behind(&w->af, STN_NPY_DATA_OFFSET + off, nbytes);
    if (rc == 0) {
        w->written += nbytes;
        if (st)
            st->bytes_written += nbytes;
    }
    stn_stats_add_time(st, STN_PHASE_WRITE, t0);
    return rc;
}

int stn_npy_writer_finish(stn_npy_writer *w) {
    if (w->written != w->expect)
        return stn_error(-EIO, "'%s' is incomplete: %llu of its %llu data bytes were written", w->af.path,
                         (unsigned long long)w->written, (unsigned long long)w->expect);
    return stn_afile_sync(&w->af);
}

int stn_npy_writer_join(const char *path, const char *tmp, const char *descr, int ndim, const int64_t *shape,
                        stn_npy_writer **w) {
    *w = NULL;
    int64_t nbytes = array_bytes(ndim, shape, stn_npy_elem_size(descr));
    stn_npy_writer *nw = calloc(1, sizeof *nw);
    if (!nw || nbytes < 0)
        return stn_error(nw ? -EOVERFLOW : -ENOMEM, "cannot write '%s': out of memory or a bad shape", path);
    nw->nbytes = nw->expect = (uint64_t)nbytes;
    nw->af.fd = open(tmp, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    nw->af.path = strdup(path);
    nw->af.tmp = strdup(tmp);
    if (nw->af.fd < 0 || !nw->af.path || !nw->af.tmp) {
        int e = nw->af.fd < 0 ? errno : ENOMEM;
        stn_npy_writer_abort(nw); /* (not created here: nothing is unlinked) */
        return stn_error(stn_neg_errno(e),
                         "cannot open '%s' (the temporary of '%s' another rank created): %s", tmp, path,
                         strerror(e));
    }
    *w = nw;
    return 0;
}

const char *stn_npy_writer_tmp(const stn_npy_writer *w) { return w->af.tmp; }

void stn_npy_writer_expect(stn_npy_writer *w, uint64_t bytes) { w->expect = bytes; }

int stn_npy_writer_commit(stn_npy_writer *w) {
    int rc = stn_npy_writer_finish(w);
    if (rc) {
        stn_npy_writer_abort(w);
        return rc;
    }
    rc = stn_afile_commit(&w->af); /* removes the temporary itself on failure */
    free(w);
    return rc;
}

void stn_npy_writer_abort(stn_npy_writer *w) {
    if (!w)
        return;
    stn_afile_abort(&w->af);
    free(w);
}
