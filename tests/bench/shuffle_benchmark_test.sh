#!/usr/bin/env bash
# ldp-bench-shuffle (bench/studies/shuffle/) run small, as a user would: the
# real binary at n = 2000, one ε, one trial. Fails unless it exits 0,
# prints the table header and one row per oracle with no NaN or infinity,
# every measured / predicted MSE ratio is within [0.25, 4] (a loose bound:
# with 64 bins one trial's ratio has a standard deviation near 0.2, and
# reports drawn at the wrong ε would be off by an order of magnitude),
# writes the same rows to --out as CSV, and refuses a --trials list that
# matches neither one entry nor --n. Takes well under a second; asserts
# nothing about speed.
# Usage: shuffle_benchmark_test.sh <ldp-bench-shuffle>
set -euo pipefail
binary=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

if ! "$binary" --n=2000 --epsilon=1 --trials=1 --seed=7 \
    --out="$dir/table.csv" > "$dir/out.md" 2> "$dir/err.txt"; then
  cat "$dir/err.txt"; fail "the small run exited non-zero"
fi
cat "$dir/out.md"
grep -qF '| oracle | n | T | ε | ε0 |' "$dir/out.md" || fail "no table header"
for oracle in 'GRR' 'OLH' 'HR' 'HR t=1'; do
  grep -qE "^\| $oracle \| 2000 \| 1 \| 1 \| " "$dir/out.md" ||
    fail "no row for $oracle at n = 2000, ε = 1"
done
if grep -Eiw 'nan|inf|-nan|-inf' "$dir/out.md" "$dir/table.csv"; then
  fail "the output shows a NaN or infinity (above)"
fi
# Columns 11 and 14 of a row (fields split on |) are the two ratios.
awk -F'|' '/^\| (GRR|OLH|HR)/ {
  for (c = 11; c <= 14; c += 3) if ($c + 0 < 0.25 || $c + 0 > 4) {
    print "ratio out of [0.25, 4]: " $0; bad = 1 } }
  END { exit bad }' "$dir/out.md" || fail "a measured / predicted ratio"
rows=$(grep -c '^[A-Z]' "$dir/table.csv" || true)
[ "$rows" = 4 ] || fail "the CSV has $rows rows, not 4"
if "$binary" --n=2000 --epsilon=1 --trials=1,2 > /dev/null 2> "$dir/bad.err"
then
  fail "--trials=1,2 with one n was accepted"
fi
grep -qF -- "--trials has 2 entries" "$dir/bad.err" ||
  fail "the refusal does not name --trials"
[ "$status" = 0 ] && echo "PASS"
exit "$status"
