/*
 * stn_report.h -- the JSON report of a run (--report FILE, docs/report.schema.json): report/report.c.
 */
#ifndef STN_REPORT_H
#define STN_REPORT_H

#include "run/stn_run.h"

/* The JSON report of a run (`plan` NULL unless its engine plans blocks: out of core), written
 * atomically. */
int stn_report_write(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, const char *path);
/* The same into `af`, opened already (stn_afile_open), written and synced but not renamed. */
int stn_report_fill(const stn_run *r, const stn_result *res, const stn_ooc_result *plan, stn_afile *af);

#endif /* STN_REPORT_H */
