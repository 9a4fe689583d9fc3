/* numa.c -- the NUMA placement of a run's threads and buffers (issue 33): with hwloc, the OpenMP threads
 * bound to the nodes in contiguous groups (as many per node as its share of the processing units), and the
 * memory the engine allocates afterwards interleaved over those nodes.  One node: nothing is done and
 * nothing is reported.  The topology is hwloc's (HWLOC_XMLFILE and HWLOC_SYNTHETIC apply); one that is
 * not this system's is planned and reported, not applied. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int place(stn_numa *n, int nthreads, int local_rank);

/* The nodes with processing units, in hwloc's order (at most STN_NUMA_MAX_NODES). */
static int nodes_of(hwloc_topology_t t, hwloc_obj_t *objs, stn_numa *n) {
    int k = 0, all = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < all && k < STN_NUMA_MAX_NODES; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        int pus = o && o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;
        if (pus <= 0)
            continue;
        objs[k] = o;
        n->node[k] = (stn_numa_node){
            .os_index = (int)o->os_index, .pus = pus, .memory = (uint64_t)o->attr->numanode.local_memory};
        k++;
    }
    return k;
}

/* Threads [first, first + count) of each node: its share of nthreads by its processing units. */
static void share_threads(stn_numa *n, int nthreads) {
    int total = 0, before = 0;
    for (int k = 0; k < n->nodes; k++)
        total += n->node[k].pus;
    for (int k = 0; k < n->nodes; k++) {
        int first = (int)((int64_t)nthreads * before / total);
        before += n->node[k].pus;
        int end = (int)((int64_t)nthreads * before / total);
        n->node[k].first_thread = first;
        n->node[k].threads = end - first;
    }
}

/* Each thread bound to its node's processing units and read back; the threads whose binding holds. */
static int bind_threads(hwloc_topology_t t, hwloc_obj_t *objs, const stn_numa *n) {
    int bound = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(n->nthreads) reduction(+ : bound)
#endif
    {
        int me = stn_omp_thread_num(), k = 0;
        while (k + 1 < n->nodes && me >= n->node[k + 1].first_thread)
            k++;
        hwloc_bitmap_t got = hwloc_bitmap_alloc();
        if (got && hwloc_set_cpubind(t, objs[k]->cpuset, HWLOC_CPUBIND_THREAD) == 0 &&
            hwloc_get_cpubind(t, got, HWLOC_CPUBIND_THREAD) == 0 &&
            hwloc_bitmap_isequal(got, objs[k]->cpuset))
            bound += 1;
        hwloc_bitmap_free(got);
    }
    return bound;
}

/* The process's memory policy: interleaved over the nodes' memory (what the engine allocates from now). */
static void bind_memory(hwloc_topology_t t, hwloc_obj_t *objs, stn_numa *n) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (!set) {
        snprintf(n->memory, sizeof n->memory, "not bound: out of memory");
        return;
    }
    for (int k = 0; k < n->nodes; k++)
        hwloc_bitmap_or(set, set, objs[k]->nodeset);
    if (hwloc_set_membind(t, set, HWLOC_MEMBIND_INTERLEAVE,
                          HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) == 0)
        snprintf(n->memory, sizeof n->memory, "interleaved over the %d nodes (hwloc_set_membind)", n->nodes);
    else
        snprintf(n->memory, sizeof n->memory, "not bound: hwloc_set_membind: %s", strerror(errno));
    hwloc_bitmap_free(set);
}

int stn_numa_place(stn_numa *n, int nthreads) { return place(n, nthreads, -1); }

int stn_numa_place_rank(stn_numa *n, int nthreads, int local_rank) {
    return place(n, nthreads, local_rank < 0 ? 0 : local_rank);
}

/* A rank's threads all on node `on`: the nodes before it start at thread 0 with none, those after at
 * nthreads. */
static void rank_threads(stn_numa *n, int nthreads, int on) {
    for (int k = 0; k < n->nodes; k++)
        n->node[k].first_thread = k <= on ? 0 : nthreads, n->node[k].threads = k == on ? nthreads : 0;
}

/* The memory of a rank bound to its node. */
static void bind_rank_memory(hwloc_topology_t t, hwloc_obj_t node, stn_numa *n) {
    if (hwloc_set_membind(t, node->nodeset, HWLOC_MEMBIND_BIND,
                          HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) == 0)
        snprintf(n->memory, sizeof n->memory, "bound to node %u (hwloc_set_membind)", node->os_index);
    else
        snprintf(n->memory, sizeof n->memory, "not bound: hwloc_set_membind: %s", strerror(errno));
}

/* The node of an MPI rank (stn_numa_rank_node) among the k nodes objs. */
static int rank_node_of(hwloc_obj_t *objs, int k, int local_rank, int *by, int *spans) {
    cpu_set_t cs;
    int hit = 0, hits = 0;
    CPU_ZERO(&cs);
    if (sched_getaffinity(0, sizeof cs, &cs) == 0)
        for (int i = 0; i < k; i++) {
            int meets = 0, pu;
            hwloc_bitmap_foreach_begin(pu, objs[i]->cpuset) {
                if (pu < CPU_SETSIZE && CPU_ISSET(pu, &cs))
                    meets = 1;
            }
            hwloc_bitmap_foreach_end();
            if (meets)
                hit = i, hits++;
        }
    /* (affine to every online CPU: not bound, whatever nodes an XML topology's units make it meet) */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (hits == 1 && online > 0 && CPU_COUNT(&cs) >= online)
        hits = -1;
    *spans = hits;
    *by = hits == 1 ? STN_NUMA_BY_CPUSET : STN_NUMA_BY_RANK;
    return hits == 1 ? hit : local_rank % k;
}

int stn_numa_rank_node(int local_rank, int *by, int *spans) {
    *by = 0, *spans = 0;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return 0;
    stn_numa n;
    hwloc_obj_t objs[STN_NUMA_MAX_NODES];
    int k = hwloc_topology_load(t) == 0 ? nodes_of(t, objs, &n) : 1, node = 0;
    if (k > 1)
        node = rank_node_of(objs, k, local_rank < 0 ? 0 : local_rank, by, spans);
    hwloc_topology_destroy(t);
    return node;
}

/* local_rank < 0: one process, its threads over every node; else an MPI rank, on its node (rank_node_of). */
static int place(stn_numa *n, int nthreads, int local_rank) {
    memset(n, 0, sizeof *n);
    n->nodes = 1, n->local_rank = -1;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return 0; /* no topology: one node, as hw.c assumes */
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return 0;
    }
    hwloc_obj_t objs[STN_NUMA_MAX_NODES];
    int k = nodes_of(t, objs, n);
    if (k <= 1 || nthreads < 1) {
        hwloc_topology_destroy(t);
        return 0;
    }
    n->nodes = k;
    n->nthreads = nthreads;
    if (local_rank >= 0)
        n->local_rank = local_rank,
        n->rank_node = rank_node_of(objs, k, local_rank, &n->rank_by, &n->rank_spans),
        rank_threads(n, nthreads, n->rank_node);
    else
        share_threads(n, nthreads);
    const char *xml = getenv("HWLOC_XMLFILE"), *syn = getenv("HWLOC_SYNTHETIC");
    if (xml && *xml)
        snprintf(n->source, sizeof n->source, "hwloc: HWLOC_XMLFILE=%.200s", xml);
    else if (syn && *syn)
        snprintf(n->source, sizeof n->source, "hwloc: HWLOC_SYNTHETIC=%.200s", syn);
    else
        snprintf(n->source, sizeof n->source, "hwloc: this machine");
    if (!hwloc_topology_is_thissystem(t)) {
        snprintf(n->memory, sizeof n->memory,
                 "not bound: the topology is not this system's (HWLOC_THISSYSTEM=1 applies it)");
    } else {
        n->threads_bound = bind_threads(t, objs, n);
        if (local_rank >= 0)
            bind_rank_memory(t, objs[n->rank_node], n);
        else
            bind_memory(t, objs, n);
    }
    hwloc_topology_destroy(t);
    return 0;
}

int stn_numa_count(void) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return 1;
    stn_numa n;
    hwloc_obj_t objs[STN_NUMA_MAX_NODES];
    int k = hwloc_topology_load(t) == 0 ? nodes_of(t, objs, &n) : 1;
    hwloc_topology_destroy(t);
    return k < 1 ? 1 : k;
}

/* The whole pages of [a, b) bound to node k's memory; 0 or hwloc's errno. */
static int bind_area(hwloc_topology_t t, hwloc_obj_t node, char *a, char *b, size_t page) {
    uintptr_t lo = ((uintptr_t)a + page - 1) / page * page, hi = (uintptr_t)b / page * page;
    if (hi <= lo)
        return 0;
    return hwloc_set_area_membind(t, (void *)lo, hi - lo, node->nodeset, HWLOC_MEMBIND_BIND,
                                  HWLOC_MEMBIND_BYNODESET) == 0
               ? 0
               : errno;
}

/* Node k's units [lo[k], hi[k]) of `unit` bytes in every slot of each buffer bound to node k; `what` names
 * what was bound, in the report's `buffers`. */
static void bind_units(stn_numa *n, char *const *bufs, int nbufs, size_t slot, int64_t nslots, size_t unit,
                       const int64_t *lo, const int64_t *hi, const char *what) {
    for (int k = 0; k < n->nodes; k++)
        n->node[k].buffer_bytes = 0;
    hwloc_topology_t t;
    hwloc_obj_t objs[STN_NUMA_MAX_NODES];
    stn_numa got;
    if (hwloc_topology_init(&t) != 0)
        return;
    if (hwloc_topology_load(t) != 0 || nodes_of(t, objs, &got) != n->nodes) {
        snprintf(n->buffers, sizeof n->buffers, "not bound: hwloc's topology changed");
        hwloc_topology_destroy(t);
        return;
    }
    int apply = hwloc_topology_is_thissystem(t), err = 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int k = 0; k < n->nodes; k++)
        for (int b = 0; b < nbufs; b++)
            for (int64_t s = 0; s < nslots; s++) {
                char *at = bufs[b] + (size_t)s * slot;
                size_t from = (size_t)lo[k] * unit, to = (size_t)hi[k] * unit;
                n->node[k].buffer_bytes += to - from;
                if (apply && !err)
                    err = bind_area(t, objs[k], at + from, at + to, (size_t)(page > 0 ? page : 4096));
            }
    if (!apply)
        snprintf(n->buffers, sizeof n->buffers, "not bound: the topology is not this system's (planned: %s)",
                 what);
    else if (err)
        snprintf(n->buffers, sizeof n->buffers, "not bound: hwloc_set_area_membind: %s", strerror(err));
    else
        snprintf(n->buffers, sizeof n->buffers, "%s bound to it (hwloc_set_area_membind)", what);
    hwloc_topology_destroy(t);
}

void stn_numa_bind_rows(stn_numa *n, char *const *bufs, int nbufs, size_t slot, int64_t nslots, size_t row) {
    int64_t lo[STN_NUMA_MAX_NODES], hi[STN_NUMA_MAX_NODES];
    for (int k = 0; k < n->nodes; k++)
        lo[k] = n->node[k].y0, hi[k] = n->node[k].y1;
    bind_units(n, bufs, nbufs, slot, nslots, row, lo, hi, "each node's rows of the windows");
}

void stn_numa_cut(const stn_numa *n, int64_t extent, int64_t *cut) {
    cut[0] = 0, cut[n->nodes] = extent;
    for (int k = 1; k < n->nodes; k++)
        cut[k] = extent * n->node[k].first_thread / n->nthreads;
}

void stn_numa_bind_slabs(stn_numa *n, char *const *bufs, int nbufs, int64_t nx, int64_t ny, int64_t nz,
                         size_t elem) {
    if (n->nodes <= 1 || n->local_rank >= 0 || n->nthreads < 1)
        return; /* (one node, or an MPI rank: on one node, bound whole) */
    if (nz <= 1 && ny <= 1) {
        snprintf(n->buffers, sizeof n->buffers, "interleaved: a 1d grid's one row is every node's");
        return;
    }
    int64_t extent = nz > 1 ? nz : ny, cut[STN_NUMA_MAX_NODES + 1];
    size_t unit = (size_t)nx * elem * (size_t)(nz > 1 ? ny : 1);
    n->slab_axis = nz > 1 ? 2 : 1;
    stn_numa_cut(n, extent, cut);
    for (int k = 0; k < n->nodes; k++)
        n->node[k].s0 = cut[k], n->node[k].s1 = cut[k + 1];
    bind_units(n, bufs, nbufs, unit * (size_t)extent, 1, unit, cut, cut + 1,
               nz > 1 ? "each node's planes of z of every array" : "each node's rows of every array");
}
