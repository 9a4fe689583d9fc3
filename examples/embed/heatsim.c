/* heatsim.c -- a host simulation with its own time loop, driving the stencil heat3d
 * (examples/heat3d.stn) through its simulation API (heat3d_api.h, docs/embedding.md).
 *
 *   heatsim NX NY NZ STEPS EVERY PREFIX [MODE [MEM [DIR]]]
 *
 * Every EVERY steps the host holds a heat source at the centre of the grid (a 4x4x4 box of cells
 * set to 1.0: a thermostat the host computes, not the stencil), advances the stencil, and writes
 * the middle z-plane to PREFIX_<step>.npy.  MODE is the engine ("ooc", the default: the grid on
 * flash, streamed through DRAM; or "incore"), MEM its DRAM budget (default: the machine's) and DIR
 * its scratch folder (default "."). Exit 0, or 1 with the runtime's message. */
#include <stdio.h>
#include <stdlib.h>

#include "heat3d_api.h"
#include "stn_rt.h" /* the .npy writer */

static int write_plane(const char *prefix, int64_t step, const double *plane, int64_t nx, int64_t ny) {
    char path[4096];
    snprintf(path, sizeof path, "%s_%lld.npy", prefix, (long long)step);
    const int64_t shape[2] = {ny, nx};
    stn_npy_writer *w;
    int rc = stn_npy_writer_open(path, "<f8", 2, shape, &w);
    if (rc == 0 && (rc = stn_npy_writer_write(w, plane, (size_t)(nx * ny) * sizeof *plane, NULL)) != 0)
        stn_npy_writer_abort(w);
    else if (rc == 0)
        rc = stn_npy_writer_commit(w);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s NX NY NZ STEPS EVERY PREFIX [MODE [MEM [DIR]]]\n", argv[0]);
        return 2;
    }
    heat3d_config c = heat3d_config_default();
    c.size[0] = atoll(argv[1]), c.size[1] = atoll(argv[2]), c.size[2] = atoll(argv[3]);
    int64_t steps = atoll(argv[4]), every = atoll(argv[5]);
    c.steps = steps;
    c.mode = argc > 7 ? argv[7] : "ooc";
    c.mem = argc > 8 ? argv[8] : NULL;
    c.dir = argc > 9 ? argv[9] : NULL;
    c.quiet = 1;
    if (every < 1 || c.size[0] < 8 || c.size[1] < 8 || c.size[2] < 8) {
        fprintf(stderr, "heatsim: EVERY must be at least 1 and each size at least 8\n");
        return 2;
    }
    heat3d_sim *sim;
    if (heat3d_open(&c, &sim) != 0) {
        fprintf(stderr, "heatsim: %s\n", heat3d_errmsg());
        return 1;
    }
    const int64_t nx = c.size[0], ny = c.size[1], nz = c.size[2];
    double source[64], *plane = malloc((size_t)(nx * ny) * sizeof *plane);
    for (int i = 0; i < 64; i++)
        source[i] = 1.0;
    const heat3d_box hot = {{nx / 2 - 2, ny / 2 - 2, nz / 2 - 2}, {nx / 2 + 2, ny / 2 + 2, nz / 2 + 2}};
    const heat3d_box mid = {{0, 0, nz / 2}, {nx, ny, nz / 2 + 1}};
    int rc = plane ? 0 : -1;
    for (int64_t t = 0; rc == 0 && t < steps; t += every) {
        int64_t n = steps - t < every ? steps - t : every;
        rc = heat3d_write(sim, "u", &hot, source, NULL); /* the host's source, between advances */
        if (rc == 0)
            rc = heat3d_advance(sim, n);
        if (rc == 0)
            rc = heat3d_read(sim, "u", &mid, plane, NULL);
        if (rc == 0)
            rc = write_plane(argv[6], t + n, plane, nx, ny);
    }
    if (rc != 0) {
        fprintf(stderr, "heatsim: %s\n", plane ? heat3d_errmsg() : "out of memory");
        heat3d_close(sim);
        free(plane);
        return 1;
    }
    free(plane);
    if (heat3d_close(sim) != 0) {
        fprintf(stderr, "heatsim: %s\n", heat3d_errmsg());
        return 1;
    }
    printf("heatsim: %lld steps, a plane every %lld\n", (long long)steps, (long long)every);
    return 0;
}
