#!/bin/sh
# stencilc-probe end to end (CTest test_probe): a small, quick probe of the device under $TMPDIR or
# /var/tmp must write a machine file with 12 read and 12 write points and leave no test file
# behind.  Exits 0 (pass), 1 (fail) or 77 (skip: the file system refuses O_DIRECT).
probe=$1
d=$(mktemp -d "${TMPDIR:-/var/tmp}/stn_probe_XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
"$probe" --dir "$d" --size 32M --seconds 0.02 -o "$d/m.json" --quiet 2>"$d/err"
rc=$?
cat "$d/err" >&2
if [ $rc != 0 ]; then
    grep -q -e "refuses O_DIRECT" -e "in memory (tmpfs" "$d/err" && { echo "SKIP: no device under $d"; exit 77; }
    echo "FAIL: stencilc-probe exited $rc"
    exit 1
fi
cat "$d/m.json"
for key in read write; do
    n=$(sed -n "s/^ *\"$key\": \"\(.*\)\",\{0,1\}$/\1/p" "$d/m.json" | tr ' ' '\n' | grep -c '^[0-9.]*[KMGT]\{0,1\}@[0-9]*:[0-9.]*\(e+[0-9]*\)\{0,1\}[KMGT]\{0,1\}$')
    [ "$n" = 12 ] || { echo "FAIL: \"$key\" has $n well-formed points, expected 12"; exit 1; }
done
left=$(ls -A "$d" | grep -v -e '^m\.json$' -e '^err$')
[ -z "$left" ] || { echo "FAIL: left behind in $d: $left"; exit 1; }
echo "PASS"
