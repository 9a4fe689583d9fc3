/* program.c -- stn_program_main: the generated program from command line to report.
 *
 * Exit statuses: 0 success (also --help, --version), 1 run-time failure, 2 command-line
 * mistake.  Everything a run allocates is released before returning, and nothing global
 * survives it (counters and peaks are reset at the start), so a test may call this function
 * many times in one process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "program/stn_program.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_error(const stn_program_desc *d, const char *msg) {
    stn_progress_break(); /* (a progress line rewritten on a terminal ends first) */
    fprintf(stderr, "%s: error: %s\n", d && d->name ? d->name : "stencil", msg);
    fflush(stderr);
}

/* Under MPI: ranks other than 0 print no progress and write no report; --mode mmap is not split. */
static int ranks_options(stn_sim *s) {
    int P = stn_par_size(), rank = stn_par_rank(), node = stn_par_node_size();
    if (rank > 0)
        s->o.quiet = 1;
    if (node > 1 && s->o.threads == 0) { /* ranks sharing a machine share its cores: threads that outnumber
                                          * them spin (heat3d 256^3, 24 steps, 2 ranks on the 2-core VM:
                                          * 8.9 s with 2 threads a rank, 0.61 s with 1: one sweep) */
        int cores = stn_omp_max_threads() / node;
        s->o.threads = cores > 1 ? cores : 1;
    }
    if (P > 1 && !stn_engine_of(s->o.mode)->has.splits && !s->o.help && !s->o.version)
        return stn_error(-ENOTSUP,
                         "--mode %s with %d MPI ranks: the ranks split --mode ooc, incore, gpu and gpu-ooc",
                         stn_mode_names[s->o.mode], P);
    return 0;
}

/* The rank's --dir: under MPI a list's entry of the node the rank runs on (design 022), then %r its number (0
 * without MPI), its folder made if missing. */
static int rank_dir(stn_sim *s) {
    int rank = stn_par_rank();
    if (s->o.rank_dirs > 1) { /* (stn_engine_open places the rank on the same node: the same function) */
        int by, spans, k = stn_numa_rank_node(stn_par_node_rank(), &by, &spans);
        s->o.dir_entry = k < s->o.rank_dirs ? k : 0; /* (a machine of one node: 0, the first) */
        s->o.dir = s->o.dirs[s->o.dir_entry];
    }
    const char *d = s->o.dir, *at = d ? strstr(d, "%r") : NULL;
    if (!at)
        return 0;
    size_t n = 0;
    for (; *d && n + 16 < sizeof s->dir; d++) {
        if (d[0] == '%' && d[1] == 'r') {
            n += (size_t)snprintf(s->dir + n, sizeof s->dir - n, "%d", rank);
            d++;
        } else {
            s->dir[n++] = *d;
        }
    }
    s->dir[n] = '\0';
    if (*d)
        return stn_error(-ENAMETOOLONG, "--dir %s: too long", s->o.dir);
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST)
        return stn_error(stn_neg_errno(errno), "--dir %s: cannot make rank %d's folder '%s': %s", s->o.dir,
                         rank, s->dir, strerror(errno));
    s->o.dir = s->dir;
    return 0;
}

static int program_main(const stn_program_desc *given, int argc, char **argv);

int stn_program_main(const stn_program_desc *given, int argc, char **argv) {
    stn_h5_start(); /* (before MPI: libhdf5 then ties its end to no MPI_Finalize, io/hdf5.c) */
    if (stn_par_init(&argc, &argv) != 0) {
        print_error(given, stn_errmsg());
        return 1;
    }
    int status = program_main(given, argc, argv);
    stn_par_finalize();
    return status;
}

static int program_main(const stn_program_desc *given, int argc, char **argv) {
    /* the job starts with the process (exec, loading) for the first run of a process; a later run in the
     * same process (a test calling this many times) at its own start */
    static int ran;
    double t_start = stn_now(),
           t_job = __atomic_exchange_n(&ran, 1, __ATOMIC_RELAXED) ? t_start : t_start - stn_process_age();
    stn_error_clear();
    stn_sim *s;
    if (stn_sim_new(given, &s) != 0) {
        print_error(given, stn_errmsg());
        return 1;
    }
    stn_program_desc desc = s->desc; /* for the messages, after s is gone */
    int rc = stn_opts_parse(&s->desc, argc, argv, stn_par_size(), &s->o), status = 2;
    if (rc == 0)
        rc = ranks_options(s);
    if (rc == 0 && !s->o.help && !s->o.version)
        status = 1, rc = rank_dir(s); /* (a run-time failure: the file system's) */
    /* (a rank whose folder cannot be made fails alone: every rank stops, none waits at a collective) */
    rc = stn_par_agree(rc, "with its options or its --dir");
    if (rc) {
        print_error(&desc, stn_errmsg());
        stn_sim_discard(s);
        return status;
    }
    status = 0;
    if (s->o.help) {
        stn_usage(&desc, stdout);
    } else if (s->o.version) {
        printf("%s (stencilc %s, runtime %s)\n", desc.name,
               desc.compiler_version ? desc.compiler_version : "?", STN_RT_VERSION);
    } else {
        s->program = 1;
        s->t_job = t_job;
        rc = stn_par_agree(stn_sim_start(s, t_start), "to start");
        if (rc == 0 && !s->o.plan_only && stn_par_rank() == 0)
            stn_interrupt_arm(&s->pr.in); /* (SIGINT, SIGTERM: says whether --resume continues it) */
        if (rc == 0 && !s->o.plan_only)
            rc = stn_sim_advance(s, s->o.steps - s->done); /* (resumed: the steps left) */
        if (rc == 0) {
            rc = stn_sim_close(s);
            s = NULL;
        }
        if (rc) {
            print_error(&desc, stn_errmsg());
            status = 1;
        }
    }
    stn_sim_discard(s); /* (a failed run's committed sweeps stay, for --resume) */
    stn_interrupt_disarm();
    fflush(stdout);
    return status;
}
