/* stn_parse_bytes: binary units, fractions, and every way the text can be wrong. */
#include "test_util.h"

static void good(const char *text, uint64_t want) {
    uint64_t v = 12345;
    int rc = stn_parse_bytes(text, &v);
    if (rc != 0 || v != want) {
        fprintf(stderr, "stn_parse_bytes(\"%s\"): rc %d, %llu; expected 0, %llu (%s)\n", text, rc,
                (unsigned long long)v, (unsigned long long)want, stn_errmsg());
        t_failures++;
    }
}

static void bad(const char *text, int want_rc) {
    uint64_t v = 12345;
    int rc = stn_parse_bytes(text, &v);
    if (rc != want_rc || v != 12345) {
        fprintf(stderr, "stn_parse_bytes(\"%s\"): rc %d, value %llu; expected rc %d and no value\n",
                text ? text : "(null)", rc, (unsigned long long)v, want_rc);
        t_failures++;
    }
    if (rc && text)
        CHECK_HAS(stn_errmsg(), text); /* the message quotes the text */
}

int main(void) {
    good("0", 0);
    good("4096", 4096);
    good("1K", 1024);
    good("1k", 1024);
    good("512M", 512ULL << 20);
    good("2G", 2ULL << 30);
    good("2g", 2ULL << 30);
    good("3T", 3ULL << 40);
    good("1.5T", 3ULL << 39);
    good("1.5G", 3ULL << 29);
    good(".5K", 512);
    good("2.K", 2048);
    good("0.25M", 256 * 1024);
    good("2GiB", 2ULL << 30);
    good("2GB", 2ULL << 30);
    good("4096B", 4096);
    good("16777215T", 16777215ULL << 40);
    good("18446744073709551615", UINT64_MAX);
    good("17179869183G", 17179869183ULL << 30);

    bad(NULL, -EINVAL);
    bad("", -EINVAL);
    bad("G", -EINVAL);
    bad(".", -EINVAL);
    bad("-1", -EINVAL);
    bad("+1", -EINVAL);
    bad(" 1G", -EINVAL);
    bad("1G ", -EINVAL);
    bad("1 G", -EINVAL);
    bad("1X", -EINVAL);
    bad("1GG", -EINVAL);
    bad("1.5", -EINVAL); /* a fraction of a byte */
    bad("1e3", -EINVAL);
    bad("0x10", -EINVAL);
    bad("1Gi", -EINVAL);
    bad("1P", -EINVAL);
    bad("18446744073709551616", -ERANGE);
    bad("17179869184G", -ERANGE);
    bad("16777216T", -ERANGE); /* exactly 2^64 */
    bad("99999999999999999999999T", -ERANGE);
    return t_result();
}
