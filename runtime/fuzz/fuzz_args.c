/* fuzz_args.c -- a libFuzzer harness for the command line (issue 16): the input's bytes, cut at NUL
 * bytes into arguments, are parsed by stn_opts_parse for a program chosen by the first byte among
 * three generated ones (jacobi1d: 1d, sub-steps; fdtd2d: 2d, a series, params; wave3d: 3d, two levels),
 * so every option meets every kind of descriptor.  Each parse returns 0 or an error with a message,
 * and stn_opts_free is safe either way; ASan and UBSan catch the rest.  A parse that passes bounds BT
 * by the steps (issue 28: a huge BT ran for ever) and holds no --ranks of more than one rank (this
 * harness is built without MPI); --help's text is written too.  Built by `make fuzz` against
 * the generated descriptors (stencilc --emit=c). */
#include "base/stn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const stn_program_desc *jacobi1d_program(void);
const stn_program_desc *fdtd2d_program(void);
const stn_program_desc *wave3d_program(void);

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 4096)
        return 0;
    const stn_program_desc *d = data[0] % 3 == 0   ? jacobi1d_program()
                                : data[0] % 3 == 1 ? fdtd2d_program()
                                                   : wave3d_program();
    char *text = malloc(size); /* the arguments, each NUL-terminated (the last one by the copy) */
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"prog";
    for (size_t i = 0; i < size - 1 && argc <= MAX_ARGS; i += strlen(text + i) + 1)
        argv[argc++] = text + i;
    argv[argc] = NULL;
    stn_opts o;
    memset(&o, 0, sizeof o);
    int rc = stn_opts_parse(d, argc, argv, 1, &o); /* (no MPI: one rank) */
    if (rc && stn_errmsg()[0] == '\0') {
        fprintf(stderr, "fuzz_args: stn_opts_parse returned %d with no message\n", rc);
        abort();
    }
    if (rc > 0) {
        fprintf(stderr, "fuzz_args: stn_opts_parse returned %d, not 0 or a negative errno\n", rc);
        abort();
    }
    if (rc == 0 && stn_grid_cells(&o) <= 0) { /* a parse that passes has a grid */
        fprintf(stderr, "fuzz_args: a parse passed with %lld cells\n", (long long)stn_grid_cells(&o));
        abort();
    }
    /* issue 28: a run sizes its plan by BT, bounded by the steps (an open horizon: STN_OPEN_MAX_BT); a
     * --ranks of more than one rank never passes in a run of one (this harness has no MPI) */
    int64_t horizon = o.steps > 0 ? o.steps : 1;
    for (int open = 0; rc == 0 && !o.help && !o.version && open < 2; open++) {
        stn_opts_bound_bt(&o, open);
        if (o.have_block && (o.block[2] < 1 || o.block[2] > (open ? STN_OPEN_MAX_BT : horizon))) {
            fprintf(stderr, "fuzz_args: bt %lld after bounding by %lld steps\n", (long long)o.block[2],
                    (long long)horizon);
            abort();
        }
    }
    if (rc == 0 && !o.help && !o.version && o.ranks[0] && o.ranks[0] * o.ranks[1] * o.ranks[2] != 1) {
        fprintf(stderr, "fuzz_args: --ranks %s passed in a run of one rank\n", o.ranks_text);
        abort();
    }
    if (rc == 0 && o.help) { /* the usage text (the params' defaults in their shortest exact form) */
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            stn_usage(d, null);
            fclose(null);
        }
    }
    stn_opts_free(&o);
    stn_error_clear();
    free(text);
    return 0;
}
