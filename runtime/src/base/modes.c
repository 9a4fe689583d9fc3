/* modes.c -- the names --mode gives the engines, from their list (base/stn_engines.def). */
#include "base/stn_internal.h"

const char *const stn_mode_names[] = {
#define STN_ENGINE(NAME, name, ops) name,
#include "base/stn_engines.def"
#undef STN_ENGINE
    NULL};
