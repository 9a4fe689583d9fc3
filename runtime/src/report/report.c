/* report.c -- the JSON report of a run (--report FILE), written atomically. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "report/stn_report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ a tiny JSON writer */

#define JSON_MAX_DEPTH 16

typedef struct json {
    char *s;
    size_t n, cap;
    int oom;
    int depth;
    int after_key;             /* the next value belongs to a key just written */
    int first[JSON_MAX_DEPTH]; /* no item yet at this depth */
    int flat[JSON_MAX_DEPTH];  /* items on one line: short arrays of numbers */
} json;

static void j_raw(json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void j_raw(json *j, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(j->s ? j->s + j->n : NULL, j->s ? j->cap - j->n : 0, fmt, ap);
        va_end(ap);
        if (len < 0 || j->oom)
            return;
        if (j->s && j->n + (size_t)len < j->cap) {
            j->n += (size_t)len;
            return;
        }
        size_t cap = (j->cap ? j->cap * 2 : 4096) + (size_t)len;
        char *s = realloc(j->s, cap);
        if (!s) {
            j->oom = 1;
            return;
        }
        j->s = s;
        j->cap = cap;
    }
}

/* Before an array item or an object key: the comma and the indentation. */
static void j_item(json *j) {
    if (!j->first[j->depth])
        j_raw(j, j->flat[j->depth] ? ", " : ",");
    if (!j->flat[j->depth])
        j_raw(j, "\n%*s", 2 * j->depth, "");
    j->first[j->depth] = 0;
}

static void j_value(json *j) {
    if (j->after_key)
        j->after_key = 0;
    else if (j->depth > 0)
        j_item(j);
}

/* A JSON string: quotes, backslashes and control characters escaped; invalid UTF-8 bytes
 * (paths need not be UTF-8) become U+FFFD so that the document always parses. */
static void j_str(json *j, const char *s) {
    j_value(j);
    j_raw(j, "\"");
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        unsigned char c = *u;
        int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        int ok = len > 0;
        for (int k = 1; ok && k < len; k++)
            ok = (u[k] & 0xC0) == 0x80;
        if (!ok) {
            j_raw(j, "\\ufffd");
            u++;
        } else if (c == '"' || c == '\\') {
            j_raw(j, "\\%c", c);
            u++;
        } else if (c < 0x20) {
            const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (esc)
                j_raw(j, "%s", esc);
            else
                j_raw(j, "\\u%04x", c);
            u++;
        } else {
            j_raw(j, "%.*s", len, (const char *)u);
            u += len;
        }
    }
    j_raw(j, "\"");
}

static void j_key(json *j, const char *k) {
    j_str(j, k);
    j_raw(j, ": ");
    j->after_key = 1;
}

static void j_open_as(json *j, const char *key, char c, int flat) {
    if (key)
        j_key(j, key);
    j_value(j);
    j_raw(j, "%c", c);
    if (j->depth + 1 < JSON_MAX_DEPTH) {
        j->depth++;
        j->first[j->depth] = 1;
        j->flat[j->depth] = flat;
    }
}

static void j_open(json *j, const char *key, char c) { j_open_as(j, key, c, 0); }

static void j_close(json *j, char c) {
    int newline = !j->first[j->depth] && !j->flat[j->depth];
    j->depth--;
    if (newline)
        j_raw(j, "\n%*s", 2 * j->depth, "");
    j_raw(j, "%c", c);
}

static void j_num(json *j, const char *key, double v) {
    if (key)
        j_key(j, key);
    j_value(j);
    if (isfinite(v))
        j_raw(j, "%.17g", v);
    else
        j_raw(j, "null"); /* JSON has no inf/nan */
}

static void j_u64(json *j, const char *key, uint64_t v) {
    if (key)
        j_key(j, key);
    j_value(j);
    j_raw(j, "%llu", (unsigned long long)v);
}

static void j_i64(json *j, const char *key, int64_t v) {
    if (key)
        j_key(j, key);
    j_value(j);
    j_raw(j, "%lld", (long long)v);
}

static void j_null(json *j, const char *key) {
    if (key)
        j_key(j, key);
    j_value(j);
    j_raw(j, "null");
}

static void j_bool(json *j, const char *key, int v) {
    if (key)
        j_key(j, key);
    j_value(j);
    j_raw(j, "%s", v ? "true" : "false");
}

static void j_kstr(json *j, const char *key, const char *s) {
    j_key(j, key);
    if (s)
        j_str(j, s);
    else
        j_null(j, NULL);
}

/* ------------------------------------------------------------------ the report's sections */

static void r_stencil(json *j, const stn_run *r) {
    const stn_program_desc *d = r->d;
    j_kstr(j, "stencil", d->name);
    j_kstr(j, "source", d->source);
    j_kstr(j, "compiler_version", d->compiler_version);
    j_kstr(j, "runtime_version", STN_RT_VERSION);
    j_kstr(j, "dtype", d->elem_size == 4 ? "f32" : "f64");
    j_open(j, "halo", '{');
    j_open_as(j, "lo", '[', 1);
    for (int k = 0; k < stn_dims(d); k++)
        j_i64(j, NULL, d->halo_lo[k]);
    j_close(j, ']');
    j_open_as(j, "hi", '[', 1);
    for (int k = 0; k < stn_dims(d); k++)
        j_i64(j, NULL, d->halo_hi[k]);
    j_close(j, ']');
    j_open_as(j, "reach_lo", '[', 1);
    for (int k = 0; k < stn_dims(d); k++)
        j_i64(j, NULL, d->reach_lo[k]);
    j_close(j, ']');
    j_open_as(j, "reach_hi", '[', 1);
    for (int k = 0; k < stn_dims(d); k++)
        j_i64(j, NULL, d->reach_hi[k]);
    j_close(j, ']');
    j_close(j, '}');
    j_i64(j, "kr", d->kr);
    j_i64(j, "kw", d->kw);
    j_open(j, "stencil_params", '{');
    for (int k = 0; k < d->nparams; k++)
        j_num(j, d->params[k].name, r->o->params[k]);
    j_close(j, '}');
}

/* An engine that plans (out of core): its plan, how it was chosen, its alignment, a 1d grid's rows. */
static void r_plan(json *j, const stn_run *r, const stn_ooc_result *plan) {
    j_u64(j, "mem_plan_bytes", plan->mem_plan_bytes);
    j_kstr(j, "strip", plan->strip ? plan->strip : "none");
    if (plan->tune_weighed > 0) {
        j_open(j, "tune", '{');
        j_u64(j, "predicted_bytes", plan->tune_cost);
        j_i64(j, "plans_weighed", plan->tune_weighed);
        j_num(j, "seconds", plan->tune_seconds);
        if (plan->nfinalists > 0) {
            j_open(j, "finalists", '[');
            for (int k = 0; k < plan->nfinalists; k++) {
                const stn_ooc_finalist *f = &plan->finalists[k];
                j_open(j, NULL, '{');
                j_i64(j, "by", f->blk[0]);
                if (f->blk[1] >= 0)
                    j_i64(j, "bz", f->blk[1]);
                else
                    j_null(j, "bz");
                j_i64(j, "bt", f->blk[2]);
                j_kstr(j, "strip", stn_strip_names[f->strip]);
                j_num(j, "cells_per_second", f->cells_per_second);
                j_num(j, "predicted_seconds", f->seconds);
                j_u64(j, "predicted_bytes", f->bytes);
                j_num(j, "sample_cells_per_second", f->sample);
                j_i64(j, "loops_kept", f->loops);
                j_close(j, '}');
            }
            j_close(j, ']');
        }
        j_close(j, '}');
    }
    j_open(j, "dio", '{');
    j_u64(j, "align", r->hw.block.value); /* the O_DIRECT alignment the plan padded rows to */
    j_kstr(j, "source", r->hw.block.source);
    j_close(j, '}');
    if (stn_dims(r->d) == 1 && plan->fold_row > 0) { /* a 1d grid's rows (docs/design/014) */
        j_open(j, "fold", '{');
        j_i64(j, "row", plan->fold_row);
        j_i64(j, "rows", plan->fold_rows);
        j_close(j, '}');
    } else if (stn_dims(r->d) == 1) {
        j_null(j, "fold"); /* periodic: one row */
    }
}

/* The out-of-core scratch files' tier (docs/design/022): --tier pmem's mappings once the files are open. */
/* The --init files' reads (out of core): the O_DIRECT reader's bounce and the bytes it read. */
static void r_init_reads(json *j, const stn_run *r, const stn_result *res) {
    j_open(j, "init_reads", '{');
    j_u64(j, "bounce_bytes", r->npy_bounce);
    j_u64(j, "direct_bytes", res->init_direct_bytes);
    j_close(j, '}');
}

/* The memory the IO went to and from (the rings, the --init reads' buffer): how much of it is in 2 MiB
 * pages (ring.c; docs/design/026). */
static void r_io_pages(json *j) {
    uint64_t huge, small;
    int err;
    char src[160];
    if (stn_io_pages(&huge, &small, &err) > 0)
        snprintf(src, sizeof src,
                 "MADV_COLLAPSE refused: %s (in 4 KiB pages, the IO goes out in more requests)",
                 strerror(err));
    else
        snprintf(src, sizeof src, "%s",
                 huge    ? "gathered with MADV_COLLAPSE"
                 : small ? "in 4 KiB pages: no IO buffer holds a whole 2 MiB"
                         : "no IO buffer made");
    j_open(j, "io_pages", '{');
    j_u64(j, "huge_bytes", huge);
    j_u64(j, "small_bytes", small);
    j_num(j, "seconds", stn_io_pages_seconds());
    j_kstr(j, "source", src);
    j_close(j, '}');
}

static void r_tier(json *j, const stn_run *r, const stn_result *res) {
    j_kstr(j, "scratch_layout", res->scratch_chunked ? "chunked" : "plain");
    j_open(j, "tier", '{');
    j_kstr(j, "name", stn_tier_names[r->o->tier]);
    if (r->o->tier == STN_TIER_PMEM && res->mapped_bytes > 0) {
        j_bool(j, "is_pmem", res->is_pmem);
        j_u64(j, "mapped_bytes", res->mapped_bytes);
        j_u64(j, "read_in_place_bytes", res->read_in_place);
        j_u64(j, "predicted_read_in_place_bytes", res->predicted_in_place);
        j_u64(j, "in_place_dram_bytes", res->in_place_dram);
    }
    j_close(j, '}');
}

/* Where the threads and the memory were placed, on a machine of several NUMA nodes (none on one). */
static void r_numa(json *j, const stn_result *res) {
    const stn_numa *n = &res->numa;
    j_open(j, "numa", '{');
    j_kstr(j, "source", n->source);
    j_i64(j, "threads", n->nthreads);
    j_i64(j, "threads_bound", n->threads_bound);
    j_kstr(j, "memory", n->memory);
    if (n->buffers[0]) /* --dir a,b, or in-core slabs: the engine's buffers per node */
        j_kstr(j, "buffers", n->buffers);
    if (n->slab_axis) /* in-core, or one --dir's whole planes: the axis of the nodes' slabs */
        j_kstr(j, "slab_axis", n->slab_axis == 2 ? "z" : "y");
    if (n->local_rank >= 0) { /* an MPI rank among several on the machine: on one node */
        j_i64(j, "local_rank", n->local_rank);
        j_i64(j, "rank_node", n->node[n->rank_node].os_index);
        char by[96];
        if (n->rank_by == STN_NUMA_BY_CPUSET)
            snprintf(by, sizeof by, "cpuset");
        else if (n->rank_spans < 0)
            snprintf(by, sizeof by, "rank: not bound (affine to every CPU), so local_rank mod nodes");
        else
            snprintf(by, sizeof by, "rank: its binding meets %s%d nodes' units, so local_rank mod nodes",
                     n->rank_spans ? "" : "none of the ", n->rank_spans ? n->rank_spans : n->nodes);
        j_kstr(j, "rank_node_by", by);
    }
    j_open(j, "nodes", '[');
    for (int k = 0; k < n->nodes; k++) {
        j_open(j, NULL, '{');
        j_i64(j, "os_index", n->node[k].os_index);
        j_i64(j, "pus", n->node[k].pus);
        j_u64(j, "memory_bytes", n->node[k].memory);
        j_open(j, "threads", '[');
        for (int i = 0; i < n->node[k].threads; i++)
            j_i64(j, NULL, n->node[k].first_thread + i);
        j_close(j, ']');
        if (n->dirs) { /* --dir a,b: its directory and the rows of y whose files live there */
            j_kstr(j, "dir", n->node[k].dir);
            j_u64(j, "buffer_bytes", n->node[k].buffer_bytes);
            j_open(j, "rows", '[');
            j_i64(j, NULL, n->node[k].y0);
            j_i64(j, NULL, n->node[k].y1);
            j_close(j, ']');
        }
        if (n->slab_axis) { /* in-core (every array) or one --dir (the rings): its slab, bound to it */
            j_u64(j, "buffer_bytes", n->node[k].buffer_bytes);
            j_open(j, "slab", '[');
            j_i64(j, NULL, n->node[k].s0);
            j_i64(j, NULL, n->node[k].s1);
            j_close(j, ']');
        }
        if (n->computed) { /* the rows its threads computed: the kernels' counts */
            j_open(j, "computed", '{');
            j_open(j, "rows", '[');
            j_i64(j, NULL, n->node[k].cy0);
            j_i64(j, NULL, n->node[k].cy1);
            j_close(j, ']');
            j_i64(j, "row_updates", n->node[k].crows);
            j_close(j, '}');
        }
        j_close(j, '}');
    }
    j_close(j, ']');
    j_close(j, '}');
}

/* A --dir list's entry as rank k took it: %r its number. */
static void entry_of(const char *e, int k, char *out, size_t n) {
    size_t at = 0;
    for (; *e && at + 12 < n; e++)
        if (e[0] == '%' && e[1] == 'r')
            at += (size_t)snprintf(out + at, n - at, "%d", k), e++;
        else
            out[at++] = *e;
    out[at] = '\0';
}

/* MPI: each rank's figures; the report's are their sums. */
static void r_mpi(json *j, const stn_run *r, const stn_result *res) {
    j_open(j, "mpi", '{');
    j_i64(j, "ranks", res->nranks);
    j_kstr(j, "split", r->d->ndim == 3 ? "z" : "y");
    j_open(j, "dims", '[');
    for (int k = 0; k < 3; k++)
        j_i64(j, NULL, res->dims[k]);
    j_close(j, ']');
    j_bool(j, "overlapped", res->overlapped);
    j_u64(j, "message_bytes", res->msg_sent);
    j_u64(j, "predicted_message_bytes", res->msg_predicted);
    j_open(j, "per_rank", '[');
    static const char *const keys[STN_RANK_NODE] = {"bytes_read",           "bytes_written",
                                                    "predicted_bytes_read", "predicted_bytes_written",
                                                    "message_bytes",        "predicted_message_bytes"};
    for (int k = 0; k < res->nranks; k++) {
        const uint64_t *f = res->ranks + (size_t)k * STN_RANK_FIGURES;
        j_open(j, NULL, '{');
        for (int i = 0; i < STN_RANK_NODE; i++)
            j_u64(j, keys[i], f[i]);
        if (f[STN_RANK_NODE]) { /* (placed on one NUMA node of several: stn_numa_place_rank) */
            j_i64(j, "numa_node", (int64_t)f[STN_RANK_NODE] - 1);
            j_kstr(j, "numa_by", f[STN_RANK_NODE + 2] == STN_NUMA_BY_CPUSET ? "cpuset" : "rank");
        }
        uint64_t entry = f[STN_RANK_NODE + 1];
        if (entry && (int)entry <= r->o->rank_dirs) { /* (a --dir list under MPI: the entry it took) */
            char dir[4096];
            entry_of(r->o->dirs[entry - 1], k, dir, sizeof dir);
            j_kstr(j, "dir", dir);
        }
        const uint64_t *gf = f + STN_RANK_GPU;
        if (gf[0]) { /* (the GPU modes: the rank's device, and its bytes over PCIe) */
            j_open(j, "gpu", '{');
            if (gf[0] > 1)
                j_i64(j, "device", (int64_t)gf[0] - 2);
            j_u64(j, "h2d_bytes", gf[1]);
            j_u64(j, "predicted_h2d_bytes", gf[2]);
            j_u64(j, "d2h_bytes", gf[3]);
            j_u64(j, "predicted_d2h_bytes", gf[4]);
            j_close(j, '}');
        }
        j_close(j, '}');
    }
    j_close(j, ']');
    j_close(j, '}');
}

/* The sizes of the requests the out-of-core engine's queue made: bucket k holds requests of
 * [bucket_bytes[k], bucket_bytes[k + 1]) bytes (the last without an end), their number and their bytes. */
static void r_req_sizes(json *j, const stn_req_sizes *h) {
    j_open(j, "request_sizes", '{');
    j_open(j, "bucket_bytes", '[');
    for (int k = 0; k < STN_REQ_BUCKETS; k++)
        j_u64(j, NULL, stn_req_floor(k));
    j_close(j, ']');
    for (int w = 0; w < 2; w++) {
        j_open(j, w ? "write" : "read", '{');
        j_open(j, "requests", '[');
        for (int k = 0; k < STN_REQ_BUCKETS; k++)
            j_u64(j, NULL, h->count[w][k]);
        j_close(j, ']');
        j_open(j, "bytes", '[');
        for (int k = 0; k < STN_REQ_BUCKETS; k++)
            j_u64(j, NULL, h->bytes[w][k]);
        j_close(j, ']');
        j_close(j, '}');
    }
    j_close(j, '}');
}

static void r_blocks(json *j, const char *key, const int64_t blk[3], int strip) {
    j_open(j, key, '{');
    j_i64(j, "by", blk[0]);
    if (blk[1] >= 0)
        j_i64(j, "bz", blk[1]);
    else
        j_null(j, "bz");
    j_i64(j, "bt", blk[2]);
    j_kstr(j, "strip", stn_strip_names[strip]);
    j_close(j, '}');
}

/* The re-plans between sweeps, in order (ooc_refine.c). */
static void r_replans(json *j, const stn_result *res) {
    j_open(j, "replans", '[');
    for (int k = 0; k < res->nreplans; k++) {
        const stn_replan *p = &res->replans[k];
        j_open(j, NULL, '{');
        j_i64(j, "step", p->step);
        j_i64(j, "sweep", p->sweep);
        r_blocks(j, "from", p->from, p->from_strip);
        r_blocks(j, "to", p->to, p->to_strip);
        j_num(j, "cells_per_second", p->cells_per_second);
        j_num(j, "device_scale", p->device_scale);
        j_num(j, "predicted_seconds_before", p->keep_seconds);
        j_num(j, "predicted_seconds_after", p->new_seconds);
        j_close(j, '}');
    }
    j_close(j, ']');
}

/* The time model's prediction and its parts, the rates and the device's curves it used. */
static void r_time(json *j, const stn_run *r, const stn_result *res) {
    char curve[2048];
    const stn_time_pred *t = &res->time;
    j_num(j, "predicted_seconds", t->total);
    j_num(j, "predicted_job_seconds", t->startup + t->total + t->remove);
    j_open(j, "time_model", '{');
    j_num(j, "startup", t->startup);
    j_num(j, "compute", t->compute);
    j_num(j, "init", t->init);
    j_num(j, "io", t->io);
    j_num(j, "npy", t->npy);
    j_num(j, "fill", t->fill);
    j_num(j, "transfer", t->xfer);
    j_num(j, "copy", t->copy);
    j_num(j, "snapshots", t->snap);
    j_num(j, "remove", t->remove);
    j_u64(j, "remove_bytes", t->remove_bytes);
    if (res->nranks > 1) { /* MPI: the exchanges between sweeps, and the network they were timed on */
        j_num(j, "exchange", t->exchange);
        j_num(j, "messages", t->messages);
        j_num(j, "network_bytes_per_second", r->net.bytes_per_second);
        j_num(j, "network_latency", r->net.latency);
        j_kstr(j, "network_source", r->net.source);
    }
    j_u64(j, "copy_bytes", t->copy_bytes);
    j_num(j, "copy_bytes_per_second", res->copy_bytes_per_second);
    j_kstr(j, "copy_source", res->copy_source);
    j_u64(j, "request_bytes", t->request);
    j_num(j, "cells_per_second", res->cells_per_second);
    j_kstr(j, "cells_per_second_source", res->rate_source);
    stn_dev_format_curve(&r->dev.read, curve, sizeof curve);
    j_kstr(j, "read", curve);
    stn_dev_format_curve(&r->dev.write, curve, sizeof curve);
    j_kstr(j, "write", curve);
    stn_dev_format_curve(&r->dev.mixed, curve, sizeof curve);
    j_kstr(j, "mixed", curve);
    stn_dev_format_curve(&r->dev.mixed_new, curve, sizeof curve);
    j_kstr(j, "mixed_new", curve);
    j_num(j, "compute_under_io", r->dev.compute_under_io > 0 ? r->dev.compute_under_io : 1);
    j_num(j, "io_under_compute", r->dev.io_under_compute > 0 ? r->dev.io_under_compute : 1);
    if (r->dev.compute_under_io_1m > 0) /* (measured at 1M too: the model reads both at request_bytes) */
        j_num(j, "compute_under_io_1m", r->dev.compute_under_io_1m);
    if (r->dev.io_under_compute_1m > 0)
        j_num(j, "io_under_compute_1m", r->dev.io_under_compute_1m);
    if (r->dev.remove_seconds_per_gib > 0) /* (not measured: remove is 0) */
        j_num(j, "remove_seconds_per_gib", r->dev.remove_seconds_per_gib);
    /* the share the model used: the plan's own, measured at startup, else the device's at request_bytes */
    j_num(j, "compute_share",
          res->compute_share > 0 ? res->compute_share : stn_dev_compute_share(&r->dev, t->request));
    j_kstr(j, "compute_share_source",
           res->compute_share > 0
               ? "measured at startup on the plan's blocks under IO (cells_per_second_source)"
           : res->share_source[0] ? res->share_source
                                  : "not measured for the plan");
    j_kstr(j, "device_source", r->dev.source);
    j_kstr(j, "device_curves", stn_curves_origin_name(r->dev.origin));
    if (r->dev.origin == STN_CURVES_CALIBRATED)
        j_num(j, "calibration_seconds", r->dev.calibrate_seconds);
    j_close(j, '}');
}

static void r_run(json *j, const stn_run *r, const stn_result *res, const stn_ooc_result *plan) {
    const stn_opts *o = r->o;
    j_kstr(j, "mode", stn_mode_names[o->mode]);
    if (plan)
        j_kstr(j, "schedule", stn_schedule_names[o->schedule < 0 ? STN_SCHED_REF : o->schedule]);
    else
        j_null(j, "schedule"); /* in-core has neither schedule, tuner nor blocking */
    if (plan)
        j_kstr(j, "tuner", plan->chooser);
    else
        j_null(j, "tuner");
    j_open_as(j, "size", '[', 1);
    for (int k = 0; k < stn_dims(r->d); k++)
        j_i64(j, NULL, o->size[k]);
    j_close(j, ']');
    j_i64(j, "steps", o->steps);
    j_open(j, "params", '{');
    static const char *const blk[] = {"by", "bz", "bt", "iy", "iz"};
    for (int k = 0; k < 5; k++) {
        int64_t v = k >= 3 ? res->ib.iblk[k - 3] : plan ? plan->blk[k] : -1;
        if (v > 0)
            j_i64(j, blk[k], v);
        else
            j_null(j, blk[k]); /* not applicable (in-core; bz in 2d; iz in 2d) */
    }
    j_close(j, '}');
    if (res->ib.iblk[0] > 0)
        j_kstr(j, "iblock_source", res->ib.source);
    if (res->tiles_source[0]) { /* the temporal tiles: in-core's, or out-of-core blocks' cache tiles */
        j_open(j, "time_tiles", '{');
        static const char *const tk[3] = {"by", "bz", "bt"};
        for (int k = 0; k < 3; k++) {
            if (res->time_tiles[2] > 0 && res->time_tiles[k] > 0)
                j_i64(j, tk[k], res->time_tiles[k]);
            else
                j_null(j, tk[k]);
        }
        j_kstr(j, "source", res->tiles_source);
        j_close(j, '}');
    }
    if (plan)
        r_plan(j, r, plan);
    r_init_reads(j, r, res);
    r_io_pages(j);
    if (plan)
        r_tier(j, r, res);
    if (res->numa.nodes > 1)
        r_numa(j, res);
    if (res->nranks > 1)
        r_mpi(j, r, res);
    if (plan && res->have_time)
        r_time(j, r, res);
    if (plan) /* counted: what the z-strip in DRAM copied (time_model.copy_bytes predicts it) */
        j_u64(j, "strip_bytes_copied", res->strip_copied);
    if (plan)
        r_req_sizes(j, &res->req_sizes);
    if (plan)
        r_replans(j, res);
}

static void r_files(json *j, const char *key, const stn_run *r, const char *const *paths) {
    char label[96];
    j_open(j, key, '{');
    for (int i = 0; i < 2 * r->d->nfields; i++)
        if (paths[i]) {
            snprintf(label, sizeof label, "%s%s", r->d->fields[i / 2].name, i % 2 ? ".prev" : "");
            j_kstr(j, label, paths[i]);
        }
    j_close(j, '}');
}

/* --mode gpu / gpu-ooc: the copies over PCIe, counted and predicted, and the plan (engines/gpu.c). */
static void r_gpu(json *j, const stn_result *res) {
    if (!res->gpu.have)
        return;
    j_open(j, "gpu", '{');
    j_u64(j, "h2d_bytes", res->gpu.h2d);
    j_u64(j, "predicted_h2d_bytes", res->gpu.predicted_h2d);
    j_u64(j, "d2h_bytes", res->gpu.d2h);
    j_u64(j, "predicted_d2h_bytes", res->gpu.predicted_d2h);
    j_i64(j, "bz", res->gpu.bz);
    j_i64(j, "bt", res->gpu.bt);
    j_i64(j, "blocks", res->gpu.nblocks);
    j_i64(j, "by", res->gpu.by);
    j_i64(j, "ytiles", res->gpu.ytiles);
    j_i64(j, "streams", res->gpu.streams);
    j_u64(j, "dev_bytes", res->gpu.dev_bytes);
    j_u64(j, "pinned_bytes", res->gpu.pinned_bytes);
    j_u64(j, "gpu_mem", res->gpu.gpu_mem);
    if (res->gpu.device >= 0) { /* (the device this process, or MPI rank 0, ran on; per rank: mpi.per_rank) */
        j_i64(j, "device", res->gpu.device);
        j_i64(j, "devices", res->gpu.devices);
    }
    j_close(j, '}');
}

static void r_figures(json *j, const stn_run *r, const stn_result *res, double total) {
    j_u64(j, "bytes_read", res->st.bytes_read);
    j_u64(j, "bytes_written", res->st.bytes_written);
    j_u64(j, "predicted_bytes_read", res->predicted_read);
    j_u64(j, "predicted_bytes_written", res->predicted_written);
    if (res->have_paging) { /* --mode mmap: what the page cache moved to and from the device */
        j_u64(j, "paging_bytes_read", res->paging_read);
        j_u64(j, "paging_bytes_written", res->paging_written);
    }
    r_gpu(j, res);
    j_open(j, "seconds", '{');
    j_num(j, "total", total);
    j_num(j, "job", stn_now() - (r->t_job > 0 ? r->t_job : r->t_start)); /* (a run set up by hand: t_start) */
    j_num(j, "import", res->import_seconds);
    j_num(j, "loop", res->loop_seconds);
    j_num(j, "export", res->export_seconds);
    j_num(j, "remove", res->remove_seconds);
    for (int ph = 0; ph < STN_PHASE_N; ph++)
        j_num(j, stn_phase_name(ph), res->st.seconds[ph]);
    j_close(j, '}');
    j_u64(j, "peak_rss_bytes", stn_peak_rss_bytes());
    if (res->peak_pss) {
        j_u64(j, "peak_pss_bytes", res->peak_pss); /* double-mapped ring pages counted once */
        j_u64(j, "pss_at_open_bytes", res->pss_at_open);
    }
    j_u64(j, "mem_budget_bytes", r->mem_budget);
    j_kstr(j, "mem_budget_source", r->mem_source);
    j_u64(j, "engine_bytes", res->engine_bytes);
    double cells = (double)stn_grid_cells(r->o) * (double)r->o->steps;
    j_num(j, "cells_per_second", r->o->steps > 0 && res->loop_seconds > 0 ? cells / res->loop_seconds : 0.0);
}

static void r_fig(json *j, const char *key, const stn_hw_fig *f) {
    if (!f->value && !f->source[0])
        return;
    j_open(j, key, '{');
    j_u64(j, "value", f->value);
    j_kstr(j, "source", f->source);
    j_close(j, '}');
}

static void r_hardware(json *j, const stn_run *r) {
    const stn_hw *hw = &r->hw;
    j_open(j, "hardware", '{');
    j_kstr(j, "machine", hw->machine);
    if (hw->described)
        j_kstr(j, "description", hw->description);
    j_open(j, "threads", '{');
    j_i64(j, "value", hw->described ? (int64_t)hw->cores.value : stn_omp_max_threads());
#ifdef _OPENMP
    j_kstr(j, "source", hw->described ? "the machine's cores (--machine)" : "omp_get_max_threads");
#else
    j_kstr(j, "source", "built without OpenMP");
#endif
    j_close(j, '}');
    r_fig(j, "cores", &hw->cores);
    r_fig(j, "pus", &hw->pus);
    r_fig(j, "sockets", &hw->sockets);
    r_fig(j, "numa_nodes", &hw->numa_nodes);
    r_fig(j, "l2_bytes", &hw->l2);
    r_fig(j, "l3_bytes", &hw->l3);
    r_fig(j, "dram_hwloc_bytes", &hw->dram_hwloc);
    r_fig(j, "mem_available_bytes", &hw->mem_available);
    r_fig(j, "cgroup_headroom_bytes", &hw->cgroup);
    r_fig(j, "dram_bytes", &hw->dram);
    r_fig(j, "reserve_bytes", &hw->reserve);
    r_fig(j, "device_block_bytes", &hw->block);
    j_close(j, '}');
    j_open(j, "warnings", '[');
    for (int k = 0; k < r->log->n; k++)
        j_str(j, r->log->msg[k]);
    j_close(j, ']');
}

/* The report's JSON, in j (j->oom: out of memory). */
static void report_json(json *j, const stn_run *r, const stn_result *res, const stn_ooc_result *plan) {
    j->first[0] = 1;
    double total = stn_now() - r->t_start;
    j_open(j, NULL, '{');
    r_run(j, r, res, plan);
    r_figures(j, r, res, total);
    r_hardware(j, r);
    r_stencil(j, r);
    r_files(j, "init_files", r, r->o->init_path);
    r_files(j, "out_files", r, r->o->out_path);
    j_close(j, '}');
    j_raw(j, "\n");
}

int stn_report_fill(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, stn_afile *af) {
    json j = {0};
    report_json(&j, r, res, plan);
    int rc = j.oom ? stn_error(-ENOMEM, "out of memory writing the report '%s'", af->path)
                   : stn_afile_write(af, j.s, j.n);
    if (rc == 0)
        rc = stn_afile_sync(af);
    free(j.s);
    return rc ? stn_error(rc, "cannot write the report: %s", stn_errmsg()) : 0;
}

int stn_report_write(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, const char *path) {
    stn_afile af;
    int rc = stn_afile_open(&af, path, 0);
    if (rc)
        return stn_error(rc, "cannot write the report: %s", stn_errmsg());
    rc = stn_report_fill(r, res, plan, &af);
    if (rc == 0 && (rc = stn_afile_commit(&af)) != 0)
        return stn_error(rc, "cannot write the report: %s", stn_errmsg());
    if (rc)
        stn_afile_abort(&af);
    return rc;
}
