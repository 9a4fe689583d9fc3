/* ooc_fit.c -- the time model of what is left of a run, and the figures that make it match what a sweep or a
 * loop measured: ooc_refine.c's re-plans (the device's scale) and ooc_history.c's record (the kernels' rate).
 * It calls nothing of theirs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "engines/ooc/stn_ooc_engine.h"
#include "io/stn_hdf5.h"

#include <math.h>

void stn_ooc_scaled_device(const stn_device *dev, double k, stn_device *out) {
    *out = *dev;
    stn_dev_curve *c[4] = {&out->read, &out->write, &out->mixed, &out->mixed_new};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < c[i]->n; j++)
            c[i]->p[j].bps *= k;
}

double stn_ooc_share(const ooc *e) {
    return e->res->compute_share > 0
               ? e->res->compute_share
               : stn_dev_compute_share(&e->r->dev,
                                       stn_ooc_request_bytes(&e->plan, STN_AIO_DEFAULT_MAX_REQUEST));
}

stn_time_model stn_ooc_run_model(const ooc *e, const stn_device *dev, double cells_per_second) {
    return (stn_time_model){.dev = dev,
                            .cells_per_second = cells_per_second,
                            .cells = (double)stn_grid_cells(e->r->o),
                            .copy_bytes_per_second = e->res->copy_bytes_per_second,
                            .depth = STN_AIO_DEFAULT_DEPTH,
                            .max_request = STN_AIO_DEFAULT_MAX_REQUEST,
                            .xm = NULL,
                            .ghost_bt = 0,
                            .snap_bytes_per_step = stn_h5_bytes_per_step(e->d, e->r->o),
                            .init_seconds = e->init_state,       /* (sweep 0's: the one a fit may be of) */
                            .input_init_seconds = e->init_input, /* (measured once, at the run's start) */
                            .compute_share = e->res->compute_share};
}

double stn_ooc_part_seconds(const ooc *e, const stn_ooc_plan *p, int64_t s0, int64_t steps,
                            const stn_time_model *tm) {
    stn_time_pred t;
    stn_ooc_part_time(&e->model, p, s0, steps, tm, &t);
    return t.total - t.xfer - t.exchange;
}

int stn_ooc_kernels_bound(const ooc *e, int64_t s0, int64_t steps, double rate) {
    stn_time_model tm = stn_ooc_run_model(e, &e->r->dev, rate);
    stn_time_pred t;
    stn_ooc_part_time(&e->model, &e->plan, s0, steps, &tm, &t);
    double f = stn_ooc_share(e), g = stn_dev_io_share(&e->r->dev, t.request);
    return f > 0 && g > 0 && t.compute / f >= (t.io + t.npy + t.snap) / g;
}

double stn_ooc_fit_device(const ooc *e, int64_t s, int64_t T, double rate, double wall) {
    double lo = -12, hi = 12;
    for (int it = 0; it < 48; it++) {
        double mid = 0.5 * (lo + hi);
        stn_device dev;
        stn_ooc_scaled_device(&e->r->dev, exp2(mid), &dev);
        stn_time_model tm = stn_ooc_run_model(e, &dev, rate);
        if (stn_ooc_part_seconds(e, &e->plan, s, T, &tm) > wall)
            lo = mid; /* the device must be faster */
        else
            hi = mid;
    }
    return exp2(0.5 * (lo + hi));
}

double stn_ooc_fit_rate(const ooc *e, int64_t s0, int64_t steps, double wall, double rate) {
    stn_time_model tm = stn_ooc_run_model(e, &e->r->dev, rate);
    return stn_ooc_fit_kernels(&e->model, &e->plan, s0, steps, wall, rate, &tm);
}
