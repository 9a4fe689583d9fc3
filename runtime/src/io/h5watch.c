/* h5watch.c -- a watchdog over the collective flush and close of a --save-to file that several ranks write
 * through parallel HDF5 (docs/design/021).  libhdf5 1.10 deadlocks there when one rank's write fails inside
 * H5Fclose: that rank skips the metadata cache's sync point (a barrier the other ranks wait in) and goes on
 * to MPI_File_close's barrier, so no rank ever returns.  Each rank therefore arms an alarm before the flush
 * and disarms it after the close: a close not over in STENCILC_H5_CLOSE_SECONDS (300 by default; 0: no
 * watchdog) has the rank say so, remove the temporary and end with _exit(1), after which mpirun stops the
 * others.  The handler calls only async-signal-safe functions; the message is made before the alarm is armed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "io/stn_hdf5.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char msg_[1200], tmp_[4096];
static size_t msglen_;
static struct sigaction old_;
static int armed_;

static void fire_(int sig) {
    (void)sig;
    if (tmp_[0])
        unlink(tmp_);
    ssize_t n = write(STDERR_FILENO, msg_, msglen_);
    (void)n;
    _exit(1);
}

int stn_h5_watch(const char *program, const char *path, const char *tmp) {
    const char *env = getenv("STENCILC_H5_CLOSE_SECONDS");
    long seconds = env && *env ? strtol(env, NULL, 10) : 300;
    if (seconds <= 0 || armed_)
        return 0;
    int n =
        snprintf(msg_, sizeof msg_,
                 "%s: error: --save-to %s: the ranks' collective close of the file did not end in %ld s "
                 "(STENCILC_H5_CLOSE_SECONDS): a rank's write failed inside libhdf5's close, which then "
                 "waits for ever (the write's error is above); this rank stops, and no file is left under "
                 "that name\n",
                 program, path, seconds);
    msglen_ = n < 0 ? 0 : (size_t)n < sizeof msg_ ? (size_t)n : sizeof msg_ - 1;
    snprintf(tmp_, sizeof tmp_, "%s", tmp ? tmp : "");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fire_;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, &old_) != 0)
        return 0;
    armed_ = 1;
    alarm((unsigned)seconds);
    return 1;
}

void stn_h5_unwatch(void) {
    if (!armed_)
        return;
    alarm(0);
    sigaction(SIGALRM, &old_, NULL);
    armed_ = 0;
}
