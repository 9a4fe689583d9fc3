/*
 * stn_par.h -- the ranks of a run (mpi/par.c): MPI with -DSTN_MPI (stencilc --mpi), one rank otherwise.
 * Everything above calls these few collectives and never MPI itself, so a program built without MPI is
 * the same code with one rank.  Collectives: every rank calls them.
 */
#ifndef STN_PAR_H
#define STN_PAR_H

#include "base/stn_internal.h"

int stn_par_init(int *argc, char ***argv); /* the program's main, first */
void stn_par_finalize(void);
void stn_par_abort(int status); /* the program's main only: ends every rank (MPI_Abort) */
int stn_par_rank(void);
int stn_par_size(void);
int stn_par_node_size(void); /* ranks on this machine */
int stn_par_node_rank(void); /* this rank's among them (0 .. node_size - 1) */
int stn_par_any(int bad);    /* 1 when some rank passes nonzero */
/* The agreement after a step a rank can fail alone (design 018): rc, or on a rank that did not fail while
 * another did, -EIO and "another rank failed WHAT (its error is above)".  Every rank calls it, failed or
 * not, so that none goes on to a collective the others never reach; with one rank, rc. */
int stn_par_agree(int rc, const char *what);
int64_t stn_par_min(int64_t v);
uint64_t stn_par_sum(uint64_t v);
void stn_par_gather_u64(const uint64_t *mine, int n, uint64_t *all); /* all[rank * n + i] on rank 0 */
void stn_par_bcast(void *buf, size_t n, int root);
void stn_par_barrier(void);
/* Rank 0's buf becomes the bitwise OR of every rank's (the others' unchanged): samples each held by
 * one rank, zero bits elsewhere, gathered exactly. */
void stn_par_or_to_root(void *buf, size_t n);
/* Send sn bytes to rank dest and receive rn bytes from rank src (-1: none) at once. */
int stn_par_sendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src);
/* A message of n bytes sent to rank 0 (blocking), and one received from rank src: the pieces of the snapshots
 * that rank 0 writes (engines/engine.c). */
int stn_par_to_root(const void *buf, size_t n);
int stn_par_from(int src, void *buf, size_t n);
/* The snapshot pieces that rank 0 writes, sent as each rank's tiles compute them (out of core, rank 0
 * gathering; io/hdf5.c calls these through stn_h5_gather): a blocking send of n bytes to rank 0 on a tag of
 * their own; rank 0's probe for one from any rank (1 and its source and bytes, else 0) and its receive. */
int stn_par_snap_send(const void *buf, size_t n);
int stn_par_snap_probe(int *src, size_t *n);
int stn_par_snap_recv(int src, void *buf, size_t n);
/* A send and a receive in flight (MPI_Isend, MPI_Irecv); opaque. */
typedef struct stn_par_req {
    _Alignas(8) unsigned char h[64];
    int active;
} stn_par_req;
/* Start sending sn bytes to dest and receiving rn bytes from src (-1: none); both buffers stay
 * untouched until stn_par_wait.  stn_par_test lets MPI progress them (1: both done). */
int stn_par_isendrecv(const void *sbuf, size_t sn, int dest, void *rbuf, size_t rn, int src, stn_par_req *q);
int stn_par_test(stn_par_req *q);
int stn_par_wait(stn_par_req *q);
/* Every rank: the network between ranks 0 and 1 measured by a ping-pong (the latency of 8-byte
 * messages, the bandwidth of 4 MiB ones), broadcast; how, in `source`.  0s with one rank. */
/* Parallel HDF5 (STN_H5_PARALLEL: the MPI build against libhdf5-openmpi-dev): whether the ranks write the
 * snapshot file together (several ranks and that library); the MPI-IO driver on the ranks' communicator set
 * on a file access list (0; -1 on failure, or without it).  io/hdf5.c calls the second through
 * stn_h5_ranks. */
int stn_par_h5_parallel(void);
int stn_par_h5_fapl(int64_t fapl);
int stn_par_network(double *bytes_per_second, double *latency, char *source, size_t n);

#endif /* STN_PAR_H */
