/* par.c -- the ranks of a run (issue 17, docs/design/018): MPI when the runtime is built with
 * -DSTN_MPI (`stencilc --mpi`, the mpicc wrapper), one rank otherwise.  Everything above calls
 * these few collectives and never MPI itself, so a program built without MPI is the same code
 * with one rank.  Only the program's main thread calls them (MPI_THREAD_FUNNELED). */
#include "mpi/stn_par.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STN_MPI
#include <mpi.h>

static int inited, rank_, size_ = 1, node_size_ = 1, node_rank_;

int stn_par_init(int *argc, char ***argv) {
    int have = 0, provided = 0;
    MPI_Initialized(&have);
    if (!have && MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return stn_error(-EIO, "MPI_Init_thread failed");
    inited = !have;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &node_size_);
        MPI_Comm_rank(node, &node_rank_);
        MPI_Comm_free(&node);
    }
    return 0;
}

void stn_par_finalize(void) {
    if (inited)
        MPI_Finalize();
    inited = 0;
}

void stn_par_abort(int status) { MPI_Abort(MPI_COMM_WORLD, status); }
int stn_par_rank(void) { return rank_; }
int stn_par_size(void) { return size_; }
int stn_par_node_size(void) { return node_size_; }
int stn_par_node_rank(void) { return node_rank_; }

int stn_par_any(int bad) {
    int in = bad != 0, out = in;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

int64_t stn_par_min(int64_t v) {
    long long in = v, out = v;
    MPI_Allreduce(&in, &out, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    return (int64_t)out;
}

uint64_t stn_par_sum(uint64_t v) {
    unsigned long long in = v, out = v;
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return (uint64_t)out;
}

void stn_par_gather_u64(const uint64_t *mine, int n, uint64_t *all) {
    MPI_Gather(mine, n, MPI_UNSIGNED_LONG_LONG, all, n, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
}

void stn_par_bcast(void *buf, size_t n, int root) { MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD); }

void stn_par_barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }

void stn_par_or_to_root(void *buf, size_t n) {
    for (size_t at = 0; at < n;) { /* (in pieces: an MPI count is an int) */
        int k = n - at > ((size_t)1 << 30) ? 1 << 30 : (int)(n - at);
        char *p = (char *)buf + at;
        MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : p, p, k, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
        at += (size_t)k;
    }
}

int stn_par_sendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src) {
    if (sn > (size_t)0x7fffffff || rn > (size_t)0x7fffffff)
        return stn_error(-EOVERFLOW, "a message of %zu bytes is more than MPI counts in one call",
                         sn > rn ? sn : rn);
    int rc = MPI_Sendrecv(sbuf, (int)sn, MPI_BYTE, dest < 0 ? MPI_PROC_NULL : dest, 17, rbuf, (int)rn,
                          MPI_BYTE, src < 0 ? MPI_PROC_NULL : src, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? 0 : stn_error(-EIO, "MPI_Sendrecv between ranks %d and %d failed", dest, src);
}

_Static_assert(2 * sizeof(MPI_Request) <= sizeof(((stn_par_req *)0)->h), "stn_par_req holds two requests");

int stn_par_isendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src, stn_par_req *q) {
    MPI_Request *rq = (MPI_Request *)(void *)q->h;
    rq[0] = rq[1] = MPI_REQUEST_NULL;
    q->active = 0;
    if (sn > (size_t)0x7fffffff || rn > (size_t)0x7fffffff)
        return stn_error(-EOVERFLOW, "a message of %zu bytes is more than MPI counts in one call",
                         sn > rn ? sn : rn);
    int rc = MPI_SUCCESS;
    if (src >= 0)
        rc = MPI_Irecv(rbuf, (int)rn, MPI_BYTE, src, 19, MPI_COMM_WORLD, &rq[1]);
    if (rc == MPI_SUCCESS && dest >= 0)
        rc = MPI_Isend(sbuf, (int)sn, MPI_BYTE, dest, 19, MPI_COMM_WORLD, &rq[0]);
    q->active = 1;
    return rc == MPI_SUCCESS
               ? 0
               : stn_error(-EIO, "MPI_Isend/MPI_Irecv between ranks %d and %d failed", dest, src);
}

int stn_par_test(stn_par_req *q) {
    int done = 1;
    if (q->active)
        MPI_Testall(2, (MPI_Request *)(void *)q->h, &done, MPI_STATUSES_IGNORE);
    return done;
}

int stn_par_wait(stn_par_req *q) {
    if (!q->active)
        return 0;
    q->active = 0;
    return MPI_Waitall(2, (MPI_Request *)(void *)q->h, MPI_STATUSES_IGNORE) == MPI_SUCCESS
               ? 0
               : stn_error(-EIO, "MPI_Waitall on the ghosts in flight failed");
}

/* The snapshot pieces sent to rank 0 as the wavefront passes (rank 0 gathering): a tag of their own. */
#define SNAP_TAG 23

int stn_par_snap_send(const void *buf, size_t n) {
    if (n > (size_t)0x7fffffff)
        return stn_error(-EOVERFLOW, "a message of %zu bytes is more than MPI counts in one call", n);
    return MPI_Send(buf, (int)n, MPI_BYTE, 0, SNAP_TAG, MPI_COMM_WORLD) == MPI_SUCCESS
               ? 0
               : stn_error(-EIO, "MPI_Send of a snapshot piece to rank 0 failed");
}

int stn_par_snap_probe(int *src, size_t *n) {
    int flag = 0, count = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, SNAP_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag)
        return 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *src = st.MPI_SOURCE, *n = (size_t)count;
    return 1;
}

int stn_par_snap_recv(int src, void *buf, size_t n) {
    return MPI_Recv(buf, (int)n, MPI_BYTE, src, SNAP_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? 0
               : stn_error(-EIO, "MPI_Recv of a snapshot piece from rank %d failed", src);
}

int stn_par_network(double *bytes_per_second, double *latency, char *source, size_t n) {
    *bytes_per_second = *latency = 0;
    snprintf(source, n, "one rank: no messages");
    if (size_ < 2)
        return 0;
    enum { SMALL = 200, BIG = 8 };
    size_t big = (size_t)4 << 20;
    char *buf = rank_ < 2 ? malloc(big) : NULL;
    double fig[2] = {0, 0}; /* latency, bandwidth */
    int bad = rank_ < 2 && !buf;
    if (!stn_par_any(bad) && rank_ < 2) {
        memset(buf, 0, big);
        int peer = 1 - rank_;
        for (int phase = 0; phase < 3; phase++) { /* warm-up, small, big */
            int rounds = phase == 2 ? BIG : phase == 1 ? SMALL : 20;
            int bytes = phase == 2 ? (int)big : 8;
            double t0 = MPI_Wtime();
            for (int i = 0; i < rounds; i++) {
                if (rank_ == 0) {
                    MPI_Send(buf, bytes, MPI_BYTE, peer, 18, MPI_COMM_WORLD);
                    MPI_Recv(buf, bytes, MPI_BYTE, peer, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, bytes, MPI_BYTE, peer, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, peer, 18, MPI_COMM_WORLD);
                }
            }
            double t = MPI_Wtime() - t0;
            if (phase == 1)
                fig[0] = t / (2.0 * rounds);
            else if (phase == 2 && t > 0)
                fig[1] = 2.0 * (double)rounds * (double)big / t;
        }
    }
    free(buf);
    MPI_Bcast(fig, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (bad)
        return stn_error(-ENOMEM, "out of memory for the network's ping-pong (4 MiB)");
    *latency = fig[0], *bytes_per_second = fig[1];
    snprintf(source, n, "measured at startup: ranks 0 and 1, %d round trips of 8 bytes and %d of 4 MiB",
             SMALL, BIG);
    return 0;
}

#else /* one rank */

int stn_par_init(int *argc, char ***argv) {
    (void)argc, (void)argv;
    return 0;
}
void stn_par_finalize(void) {}
void stn_par_abort(int status) { (void)status; }
int stn_par_rank(void) { return 0; }
int stn_par_size(void) { return 1; }
int stn_par_node_size(void) { return 1; }
int stn_par_node_rank(void) { return 0; }
int stn_par_any(int bad) { return bad != 0; }
int64_t stn_par_min(int64_t v) { return v; }
uint64_t stn_par_sum(uint64_t v) { return v; }
void stn_par_gather_u64(const uint64_t *mine, int n, uint64_t *all) {
    memcpy(all, mine, (size_t)n * sizeof *all);
}
void stn_par_bcast(void *buf, size_t n, int root) { (void)buf, (void)n, (void)root; }
void stn_par_barrier(void) {}
void stn_par_or_to_root(void *buf, size_t n) { (void)buf, (void)n; }
int stn_par_snap_send(const void *buf, size_t n) {
    (void)buf, (void)n;
    return stn_error(-EINVAL, "internal error: a message between ranks of a run of one");
}
int stn_par_snap_probe(int *src, size_t *n) { return (void)src, (void)n, 0; }
int stn_par_snap_recv(int src, void *buf, size_t n) {
    (void)src, (void)buf, (void)n;
    return stn_error(-EINVAL, "internal error: a message between ranks of a run of one");
}
int stn_par_sendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src) {
    (void)sbuf, (void)sn, (void)rbuf, (void)rn;
    return dest < 0 && src < 0
               ? 0
               : stn_error(-EINVAL, "internal error: a message between ranks of a run of one");
}

int stn_par_network(double *bytes_per_second, double *latency, char *source, size_t n) {
    *bytes_per_second = *latency = 0;
    snprintf(source, n, "one rank: no messages");
    return 0;
}
int stn_par_isendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src, stn_par_req *q) {
    (void)sbuf, (void)sn, (void)rbuf, (void)rn;
    q->active = 0;
    return dest < 0 && src < 0
               ? 0
               : stn_error(-EINVAL, "internal error: a message between ranks of a run of one");
}
int stn_par_test(stn_par_req *q) {
    (void)q;
    return 1;
}
int stn_par_wait(stn_par_req *q) {
    q->active = 0;
    return 0;
}

#endif

int stn_par_agree(int rc, const char *what) {
    if (stn_par_size() > 1 && stn_par_any(rc) && rc == 0)
        rc = stn_error(-EIO, "another rank failed %s (its error is above); this rank stops there too", what);
    return rc;
}

int stn_par_to_root(const void *buf, size_t n) { return stn_par_sendrecv(buf, n, 0, NULL, 0, -1); }

int stn_par_from(int src, void *buf, size_t n) { return stn_par_sendrecv(NULL, 0, -1, buf, n, src); }

/* ------------------------------------------------------------------ parallel HDF5 (--save-to) */

#ifdef STN_H5_PARALLEL
#include <hdf5.h>

int stn_par_h5_parallel(void) { return stn_save_together(stn_par_size()); }
int stn_par_h5_fapl(int64_t fapl) {
    return H5Pset_fapl_mpio((hid_t)fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0 ? -1 : 0;
}
#else
int stn_par_h5_parallel(void) { return 0; }
int stn_par_h5_fapl(int64_t fapl) { return (void)fapl, -1; }
#endif
