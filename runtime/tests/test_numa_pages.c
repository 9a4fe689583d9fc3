/* test_numa_pages.c -- where the pages of the engine's buffers land after base/numa.c placed a run (issue 33,
 * docs/design/022): on a machine whose kernel has two NUMA nodes with memory or more, stn_numa_place on this
 * machine's topology binds every thread, sets the memory policy (interleaved over the nodes), and a buffer
 * allocated next as the engines allocate theirs (stn_alloc) and first written by the main thread has its
 * pages on those nodes, every node a share (move_pages(2) asked with nodes NULL: where each page is); and a
 * window ring whose rows are bound per node (stn_numa_bind_rows, --dir a,b) has each node's rows on it, and
 * an in-core array whose planes are cut into slabs (stn_numa_bind_slabs) each node's planes. Exits 77 (skip),
 * saying why, where that cannot be told: one node with memory (this VM), a kernel without move_pages, or a
 * topology whose nodes with processing units are fewer than two. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/stn_internal.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SKIP 77
#define BUF_BYTES ((size_t)64 << 20)

/* The nodes with memory the kernel lists (/sys/devices/system/node/has_memory, "0" or "0-1,3"): their count.
 */
static int kernel_nodes(char *list, size_t n) {
    FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
    if (!f || !fgets(list, (int)n, f)) {
        if (f)
            fclose(f);
        snprintf(list, n, "(unreadable)");
        return 1;
    }
    fclose(f);
    list[strcspn(list, "\n")] = '\0';
    int count = 0;
    for (char *p = list; *p;) {
        long a = strtol(p, &p, 10), b = a;
        if (*p == '-')
            b = strtol(p + 1, &p, 10);
        count += (int)(b - a + 1);
        if (*p == ',')
            p++;
        else if (*p)
            break;
    }
    return count;
}

/* Where each of `pages` pages from buf lies (move_pages with nodes NULL); 0 or -1 (said why). */
static int pages_at(char *buf, size_t pages, long page, int *where) {
    void **addr = malloc(pages * sizeof *addr);
    if (!addr) {
        printf("FAIL: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < pages; i++)
        addr[i] = buf + i * (size_t)page, where[i] = -1;
    long rc = syscall(SYS_move_pages, 0, (unsigned long)pages, addr, NULL, where, 0);
    free(addr);
    if (rc != 0)
        printf("FAIL: move_pages: %s\n", strerror(errno));
    return rc != 0 ? -1 : 0;
}

/* The out-of-core window with --dir a,b: a ring as the engine allocates it (stn_ring_alloc), SLOTS slots of
 * ROWS rows of 4 pages, node k's rows [y0, y1) of every slot bound to it (stn_numa_bind_rows) and then first
 * written by the main thread: every page of node k's rows must be on node k. */
#define SLOTS 4
#define ROWS 16
static int rows_on_their_nodes(stn_numa *n, long page) {
    size_t row = 4 * (size_t)page, slot = ROWS * row, pages = SLOTS * slot / (size_t)page;
    for (int k = 0; k < n->nodes; k++)
        n->node[k].y0 = ROWS * k / n->nodes, n->node[k].y1 = ROWS * (k + 1) / n->nodes;
    char *ring = stn_ring_alloc(SLOTS * slot, 1);
    int *where = malloc(pages * sizeof *where), fail = 0;
    if (!ring || !where) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    stn_numa_bind_rows(n, &ring, 1, slot, SLOTS, row);
    printf("buffers: %s\n", n->buffers);
    if (strncmp(n->buffers, "each node's rows", 16) != 0)
        fail = 1;
    memset(ring, 1, SLOTS * slot);
    if (pages_at(ring, pages, page, where) != 0)
        fail = 1;
    for (size_t i = 0; !fail && i < pages; i++) {
        int64_t y = (int64_t)((i * (size_t)page) % slot / row);
        int k = 0;
        while (k + 1 < n->nodes && y >= n->node[k].y1)
            k++;
        if (where[i] != n->node[k].os_index)
            printf("FAIL: page %zu (row %lld) on node %d, not its node %d\n", i, (long long)y, where[i],
                   n->node[k].os_index),
                fail = 1;
    }
    stn_ring_free(ring, SLOTS * slot, 1);
    free(where);
    return fail;
}

/* The in-core engine: an array of PLANES planes of 4 pages (stn_alloc, as dram_alloc), cut into one slab a
 * node by the nodes' threads and bound (stn_numa_bind_slabs), then first written by the main thread: every
 * page of node k's planes must be on node k. */
#define PLANES 24
static int slabs_on_their_nodes(stn_numa *n, long page) {
    size_t plane = 4 * (size_t)page, pages = PLANES * plane / (size_t)page;
    char *buf = stn_alloc(PLANES * plane, (size_t)page);
    int *where = malloc(pages * sizeof *where), fail = 0;
    if (!buf || !where) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    /* nx x ny = one plane of 4 pages of doubles */
    stn_numa_bind_slabs(n, &buf, 1, (int64_t)(plane / 8 / 2), 2, PLANES, 8);
    printf("in-core buffers: %s\n", n->buffers);
    if (n->slab_axis != 2 || strncmp(n->buffers, "each node's planes of z", 23) != 0)
        fail = 1;
    memset(buf, 1, PLANES * plane);
    if (pages_at(buf, pages, page, where) != 0)
        fail = 1;
    for (size_t i = 0; !fail && i < pages; i++) {
        int64_t z = (int64_t)(i * (size_t)page / plane);
        int k = 0;
        while (k + 1 < n->nodes && z >= n->node[k].s1)
            k++;
        if (where[i] != n->node[k].os_index)
            printf("FAIL: page %zu (plane %lld) on node %d, not its node %d\n", i, (long long)z, where[i],
                   n->node[k].os_index),
                fail = 1;
    }
    stn_free(buf);
    free(where);
    return fail;
}

int main(void) {
    unsetenv("HWLOC_XMLFILE"), unsetenv("HWLOC_SYNTHETIC"); /* this machine's topology only */
    char list[256];
    int have = kernel_nodes(list, sizeof list);
    if (have < 2) {
        printf("SKIP: the kernel lists %d NUMA node%s with memory (/sys/devices/system/node/has_memory: %s): "
               "every page is on node %s, so where the buffers land says nothing\n",
               have, have == 1 ? "" : "s", list, list);
        return SKIP;
    }
    long page = sysconf(_SC_PAGESIZE);
    void *probe[1] = {&have};
    int st[1] = {-1};
    if (syscall(SYS_move_pages, 0, 1UL, probe, NULL, st, 0) != 0 && errno == ENOSYS) {
        printf("SKIP: the kernel has no move_pages(2) (ENOSYS)\n");
        return SKIP;
    }
    stn_numa n;
    int threads = omp_get_max_threads() < 2 ? 2 : omp_get_max_threads();
    stn_numa_place(&n, threads);
    if (n.nodes < 2) {
        printf(
            "SKIP: %d nodes with memory (%s), but hwloc finds %d with processing units to place threads on\n",
            have, list, n.nodes);
        return SKIP;
    }
    int fail = 0;
    if (n.threads_bound != n.nthreads)
        printf("FAIL: %d of %d threads bound to their node\n", n.threads_bound, n.nthreads), fail = 1;
    if (strncmp(n.memory, "interleaved", 11) != 0)
        printf("FAIL: the memory policy: %s\n", n.memory), fail = 1;
    char *buf = stn_alloc(BUF_BYTES, (size_t)page);
    size_t pages = BUF_BYTES / (size_t)page;
    void **addr = malloc(pages * sizeof *addr);
    int *where = malloc(pages * sizeof *where);
    if (!buf || !addr || !where) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    memset(buf, 1, BUF_BYTES); /* first written by the main thread, as the engines do */
    for (size_t i = 0; i < pages; i++)
        addr[i] = buf + i * (size_t)page, where[i] = -1;
    if (syscall(SYS_move_pages, 0, (unsigned long)pages, addr, NULL, where, 0) != 0) {
        printf("FAIL: move_pages: %s\n", strerror(errno));
        return 1;
    }
    size_t on[STN_NUMA_MAX_NODES] = {0}, elsewhere = 0;
    for (size_t i = 0; i < pages; i++) {
        int k = 0;
        while (k < n.nodes && n.node[k].os_index != where[i])
            k++;
        if (k < n.nodes)
            on[k]++;
        else
            elsewhere++;
    }
    if (elsewhere)
        printf("FAIL: %zu of %zu pages on no node the threads were placed on (the first: node %d)\n",
               elsewhere, pages, where[0]),
            fail = 1;
    for (int k = 0; k < n.nodes; k++) {
        printf("node %d: %zu of %zu pages\n", n.node[k].os_index, on[k], pages);
        if (on[k] <
            pages / (size_t)n.nodes / 2) /* interleaved: about 1/nodes each (huge pages move in 512s) */
            printf("FAIL: node %d holds %zu pages, under half its share of an interleaved buffer\n",
                   n.node[k].os_index, on[k]),
                fail = 1;
    }
    stn_free(buf);
    free(addr);
    free(where);
    int rows = rows_on_their_nodes(&n, page), slabs = slabs_on_their_nodes(&n, page);
    return rows || slabs || fail;
}
