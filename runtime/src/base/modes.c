/* modes.c -- the names of the command line's choices: those --mode gives the engines, from their list
 * (base/stn_engines.def), and the tuners', schedules', z-strips' and rankings' (args.c parses them,
 * args_check.c and the report name them). */
#include "base/stn_internal.h"

const char *const stn_mode_names[] = {
#define STN_ENGINE(NAME, name, ops) name,
#include "base/stn_engines.def"
#undef STN_ENGINE
    NULL};

const char *const stn_tuner_names[] = {"blk", "naive", "brute", NULL};
const char *const stn_schedule_names[] = {"ref", "alg1", "alg2", NULL};
const char *const stn_strip_names[] = {"none", "dram", "file", NULL};
const char *const stn_rank_names[] = {"time", "bytes", NULL};
