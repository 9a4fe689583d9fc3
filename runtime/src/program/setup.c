/* setup.c -- a run of the program from its options to its report, around the engine: the machine and
 * the budget, the inputs read and the outputs' temporaries made, the device found; after the engine,
 * the outputs committed, the ranks' figures gathered, the report written. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "program/stn_program.h"

#include "io/stn_probe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int stn_program_setup(stn_program_run *pr, const stn_program_desc *d, const stn_opts *o, double t_start) {
    memset(pr, 0, sizeof *pr);
    stn_run *r = &pr->in;
    pr->log = (stn_log){d->name, o->quiet, 0, {0}};
    r->d = d;
    r->o = o;
    r->log = &pr->log;
    r->t_start = t_start;
    r->view =
        (stn_view){o->size[0], o->size[1], o->size[2], o->size[0], o->size[0] * o->size[1], 0, 0, 0, NULL};
    r->grid_bytes = (uint64_t)stn_grid_cells(o) * (uint64_t)d->elem_size;
    int rc = o->machine ? stn_hw_load_machine(o->machine, &r->hw) : stn_hw_discover(&r->hw);
    if (rc)
        return rc;
    if (o->mem_given) {
        char a[32], b[32];
        if (r->hw.dram.value && o->mem > r->hw.dram.value) /* (a typo's 1000T, or a budget that would swap) */
            return stn_error(-EINVAL, "--mem %s: more than %s's memory, %s (%s): a budget must fit in DRAM",
                             stn_fmt_bytes(a, sizeof a, o->mem), r->hw.machine,
                             stn_fmt_bytes(b, sizeof b, r->hw.dram.value),
                             r->hw.described ? "its \"dram\"" : r->hw.dram.source);
        r->mem_budget = o->mem;
        snprintf(r->mem_source, sizeof r->mem_source, "--mem");
    } else {
        r->mem_budget = stn_hw_budget(&r->hw, r->mem_source, sizeof r->mem_source);
        int node = stn_par_node_size(); /* MPI ranks on this machine share its DRAM */
        if (node > 1) {
            r->mem_budget = stn_mem_per_rank(r->mem_budget, node);
            size_t k = strlen(r->mem_source);
            snprintf(r->mem_source + k, sizeof r->mem_source - k, ", shared by %d ranks on this machine",
                     node);
        }
    }
    return 0;
}

/* The out-of-core engine's device: --dir must be a directory, and its O_DIRECT alignment is the
 * machine's block figure (a --machine file gives its own, and no directory is touched).  --dir a,b: each
 * a directory of its own (not one twice), the rows padded to the largest of their alignments. */
static int find_device(stn_run *r) {
    if (r->hw.described)
        return 0;
    struct stat seen[STN_NUMA_MAX_NODES];
    stn_hw_fig *block = &r->hw.block;
    block->value = 0;
    for (int k = 0; k < (r->o->ndirs > 1 ? r->o->ndirs : 1); k++) {
        const char *dir = r->o->ndirs > 1 ? r->o->dirs[k] : r->o->dir;
        struct stat *sb = &seen[k];
        if (stat(dir, sb) != 0)
            return stn_error(stn_neg_errno(errno), "--dir %s: %s (the scratch files of --mode ooc go there)",
                             dir, errno == ENOENT ? "no such directory" : strerror(errno));
        if (!S_ISDIR(sb->st_mode))
            return stn_error(-ENOTDIR, "--dir %s: not a directory", dir);
        for (int j = 0; j < k; j++)
            if (seen[j].st_dev == sb->st_dev && seen[j].st_ino == sb->st_ino)
                return stn_error(-EINVAL,
                                 "--dir: directories %d (%s) and %d (%s) of the list are the same one", j + 1,
                                 r->o->dirs[j], k + 1, dir);
        size_t align = 0;
        char source[sizeof block->source];
        int rc = stn_dio_alignment(dir, &align, source, sizeof source);
        if (rc)
            return rc;
        if (align > block->value) /* (powers of two: the largest is a multiple of every other) */
            block->value = align, snprintf(block->source, sizeof block->source, "%s", source);
    }
    return 0;
}

/* A calibration of --dir's device now (stn_probe_calibrate: a few seconds at most), kept in the cache
 * (path; "" when there is none) for the next runs on the device as a machine file whose description
 * says it is a calibration.  0, or the calibration's failure (the caller keeps the default). */
static int calibrate(stn_run *r, const char *path) {
    stn_device dev;
    double t0 = stn_now();
    int rc = stn_probe_calibrate(r->o->dir, &dev);
    stn_stats_reset_peaks(); /* (its 32 MiB of buffers, freed, are not the run's peaks) */
    if (rc)
        return rc;
    dev.origin = STN_CURVES_CALIBRATED;
    dev.calibrate_seconds = stn_now() - t0;
    if (stn_dev_identity(r->o->dir, dev.device_id, sizeof dev.device_id) != 0)
        dev.device_id[0] = '\0';
    dev.measured_at = (int64_t)time(NULL);
    r->dev = dev;
    if (!path[0])
        return 0;
    static char text[16384]; /* (the program's one thread plans) */
    char desc[700];
    snprintf(desc, sizeof desc, "%s %.500s", STN_CALIBRATION_MARK, dev.source);
    size_t block = r->hw.block.value;
    if (stn_devfile_json(&r->hw, &dev, "this machine (a run's calibration)", desc, block, text,
                         sizeof text) != 0 ||
        stn_devfile_write(path, text, &dev) != 0) { /* (the run goes on with the curves it measured) */
        stn_warn(r->log, "the device's calibration could not be cached: %s", stn_errmsg());
        stn_error_clear();
        return 0;
    }
    snprintf(r->dev.source, sizeof r->dev.source, "calibrated now, %.1f s, cached in %.400s",
             dev.calibrate_seconds, path);
    return 0;
}

/* Why a file's curves are not --dir's device's now ("" when they are): another device at the same numbers
 * (or the disk reformatted), a run's calibration older than STN_CALIBRATION_MAX_DAYS, or one made before
 * calibrations measured the removal of a file (no "remove_seconds_per_gib": the job's prediction would
 * leave the scratch files' removal out).  A probe file written before the keys existed (no "device", no
 * "measured_at", no "remove_seconds_per_gib") is taken as it is. */
static void curves_stale(const char *dir, const stn_device *dev, int cached, char *why, size_t n) {
    char now_id[256];
    why[0] = '\0';
    if (dev->device_id[0] && stn_dev_identity(dir, now_id, sizeof now_id) == 0 &&
        strcmp(now_id, dev->device_id))
        snprintf(why, n, "measured on \"%.240s\", --dir is on \"%.240s\"", dev->device_id, now_id);
    else if (cached && dev->measured_at > 0) {
        double days = difftime(time(NULL), (time_t)dev->measured_at) / 86400.0;
        if (days > STN_CALIBRATION_MAX_DAYS)
            snprintf(why, n, "calibrated %.0f days ago; a run's calibration is redone after %d", days,
                     STN_CALIBRATION_MAX_DAYS);
    }
    if (!why[0] && cached && !(dev->remove_seconds_per_gib > 0))
        snprintf(why, n, "calibrated before runs measured the removal of a file");
}

/* Why this run may not calibrate the device (NULL: it may). */
static const char *no_calibration(int pmem) {
    const char *env = getenv("STENCILC_CALIBRATE");
    return pmem                           ? "the calibration measures the aio tier, not --tier pmem"
           : stn_par_size() > 1           ? "MPI ranks do not calibrate"
           : env && strcmp(env, "0") == 0 ? "STENCILC_CALIBRATE=0"
                                          : NULL;
}

/* The curves of the file at path (`stencilc probe`'s or an earlier run's calibration) into r->dev: 1 when
 * they are used, 0 when the device is to be calibrated again (the file unusable or stale: warned). */
static int cached_curves(stn_run *r, const char *path, int pmem) {
    stn_hw probed;
    if (stn_hw_load_machine(path, &probed) != 0 || probed.dev_keys != 3) {
        stn_warn(r->log,
                 "the device file %s is not usable (%s); the time model calibrates the device again; "
                 "run 'stencilc probe --dir %s' for full curves",
                 path, probed.dev_keys != 3 ? "no curves" : stn_errmsg(), r->o->dir);
        stn_error_clear();
        return 0;
    }
    int cached = strncmp(probed.description, STN_CALIBRATION_MARK, strlen(STN_CALIBRATION_MARK)) == 0;
    char why[600];
    curves_stale(r->o->dir, &probed.dev, cached, why, sizeof why);
    const char *cannot = why[0] ? no_calibration(pmem) : NULL;
    if (why[0] && !cannot) {
        stn_warn(r->log, "the device curves in %s are stale (%s): the run calibrates the device again", path,
                 why);
        return 0;
    }
    if (why[0])
        stn_warn(
            r->log,
            "the device curves in %s are stale (%s), used as they are (%s); run 'stencilc probe --dir %s'",
            path, why, cannot, r->o->dir);
    r->dev = probed.dev;
    r->dev.origin = cached ? STN_CURVES_CACHED : STN_CURVES_PROBE;
    snprintf(r->dev.source, sizeof r->dev.source, "%s: %.480s",
             cached ? "a cached calibration" : "stencilc probe", path);
    return 1;
}

/* The device's bandwidth curves for the time model: a --machine file's, else the file `stencilc probe`
 * or an earlier run's calibration left in the cache for --dir's device (unless stale: curves_stale), else
 * a calibration now (cached for the next runs; not under MPI, nor with STENCILC_CALIBRATE=0), else the
 * built-in default, which the plan line and the report name (r->dev.origin). */
static void find_curves(stn_run *r) {
    char path[4096] = "";
    if (r->hw.dev_keys == 3) {
        r->dev = r->hw.dev;
        r->dev.origin = STN_CURVES_MACHINE;
        return;
    }
    stn_dev_default(&r->dev);
    if (r->hw.described) { /* (another machine's: nothing here to calibrate) */
        snprintf(r->dev.source, sizeof r->dev.source,
                 "default: the --machine file gives no read and write curves");
        return;
    }
    int pmem = r->o->tier == STN_TIER_PMEM; /* (its own curves: stencilc probe --tier pmem) */
    if (stn_dev_cache_path(r->o->dir, pmem, path, sizeof path) != 0)
        path[0] = '\0';
    if (path[0] && access(path, F_OK) == 0 && cached_curves(r, path, pmem))
        return;
    const char *cannot = no_calibration(pmem);
    if (cannot) {
        snprintf(r->dev.source, sizeof r->dev.source,
                 "default: nothing measured for this device (%s); run 'stencilc probe %s--dir DIR'", cannot,
                 pmem ? "--tier pmem " : "");
        return;
    }
    if (calibrate(r, path) != 0) { /* (tmpfs, no O_DIRECT, no space: the default, said in its source) */
        snprintf(r->dev.source, sizeof r->dev.source, "default: the device could not be calibrated (%.400s)",
                 stn_errmsg());
        stn_error_clear();
    }
}

/* Whether some field starts from a --init file. */
static int any_init_file(const stn_run *r) {
    for (int i = 0; i < 2 * r->d->nfields; i++)
        if (r->o->init_path[i])
            return 1;
    return 0;
}

/* Everything before the engine: the inputs looked at, the series, points and `along` arrays read, the
 * outputs' temporaries created, the device found. */
int stn_program_prepare(stn_program_run *pr) {
    stn_run *r = &pr->in;
    const stn_engine_ops *eng = stn_engine_of(r->o->mode);
    if (!eng->has.plans)
        stn_note_ignored(r);
    int rc = 0;
    if (eng->has.device &&
        stn_par_size() > 1) /* (first: every rank takes part, before anything can fail on one) */
        rc = stn_par_network(&r->net.bytes_per_second, &r->net.latency, r->net.source, sizeof r->net.source);
    double t0 = stn_now();
    if (rc == 0 && (rc = stn_h5files_prepare(r, &pr->res.st)) == 0 && r->h5files)
        pr->res.import_seconds += stn_now() - t0; /* (HDF5 datasets read into .npy) */
    if (rc == 0)
        rc = stn_check_inputs(r);
    t0 = stn_now();
    if (rc == 0 && !r->o->plan_only)
        rc = stn_series_load(r, &pr->res.st);
    if (rc == 0 && !r->o->plan_only)
        rc = stn_points_load(r, &pr->res.st);
    if (rc == 0)
        rc = stn_along_load(r, &pr->res.st); /* the rate measurements read them too */
    if (r->inputs.series_bytes + r->inputs.points_bytes + r->inputs.along_bytes > 0)
        pr->res.import_seconds += stn_now() - t0; /* (the .npy inputs read) */
    if (rc == 0) {
        r->writers = calloc(2 * (size_t)r->d->nfields + (size_t)r->d->nrecords, sizeof *r->writers);
        if (!r->writers)
            rc = stn_error(-ENOMEM, "out of memory");
    }
    rc = stn_par_agree(rc, "to read its inputs"); /* (the outputs' opens are collective) */
    if (rc == 0)
        rc = stn_outputs_open(r, &pr->report);
    if (rc == 0 && r->snap) /* the pieces the snapshots are read and written in (engine.c, io/hdf5.c) */
        r->held += stn_engine_snap_bytes(r);
    if (rc == 0 && r->o->mode == STN_MODE_OOC && any_init_file(r)) { /* (their O_DIRECT reads' bounce) */
        r->npy_bounce = stn_mem_npy_bounce(r->mem_budget);
        r->held += r->npy_bounce;
    }
    if (rc == 0 && eng->has.device)
        rc = find_device(r);
    if (rc == 0 && eng->has.device)
        find_curves(r);
    /* (its --dir is a rank's own: one rank's unusable directory stops every rank here, before the engines'
     * collectives) */
    return stn_par_agree(rc, "to find its --dir");
}

void stn_program_extra_io(const stn_program_run *pr, uint64_t *rd, uint64_t *wr) {
    const stn_run *r = &pr->in;
    /* each series and points file is read once, before the engine; each record written once */
    *rd = r->inputs.series_bytes + r->inputs.points_bytes + r->inputs.along_bytes;
    *wr = 0;
    for (int k = 0; k < r->d->nrecords && stn_par_rank() == 0; k++) /* (rank 0 writes them) */
        *wr += ((r->o->record_path[k] ? 1 : 0) + (r->o->save_to ? 1 : 0)) * (uint64_t)r->o->steps *
               stn_record_bytes(r, k);
    uint64_t hr, hw;
    stn_h5files_bytes(r, &hr, &hw); /* HDF5 datasets as --init and --out: copied once more */
    *rd += hr, *wr += hw;
    *wr += pr->snap_written; /* the snapshots' data bytes (docs/design/021) */
}

int stn_program_commit(stn_program_run *pr, int rc) {
    stn_run *r = &pr->in;
    uint64_t xr, xw;
    stn_program_extra_io(pr, &xr, &xw);
    pr->res.predicted_read += xr, pr->res.predicted_written += xw;
    if (stn_par_size() > 1 && stn_par_any(rc) && rc == 0)
        rc = stn_error(-EIO, "another rank failed (its error is above)");
    if (rc == 0)
        rc = stn_outputs_commit(r, &pr->res, stn_engine_of(r->o->mode)->has.plans ? &pr->plan : NULL,
                                &pr->report);
    return stn_par_agree(rc, "to rename its outputs"); /* (no rank removes its scratch files before) */
}

int stn_program_finish(stn_program_run *pr, int rc, int program) {
    stn_run *r = &pr->in;
    if (rc == 0)
        rc = stn_report_commit(r, &pr->res, stn_engine_of(r->o->mode)->has.plans ? &pr->plan : NULL,
                               &pr->report);
    stn_outputs_abort(r, &pr->report); /* whatever is left after a failure */
    if (rc == 0 && program && !r->o->plan_only && stn_par_rank() == 0)
        stn_summary_end(r, &pr->res);
    return rc;
}

void stn_program_free(stn_program_run *pr) {
    free(pr->res.ranks);
    pr->res.ranks = NULL;
    stn_h5files_free(&pr->in);
    stn_series_free(&pr->in);
    stn_points_free(&pr->in);
    stn_along_free(&pr->in);
    free(pr->in.writers);
    stn_log_free(&pr->log);
}
