#!/usr/bin/env bash
# The logistic regression experiment on a CSV nobody prepared for
# it, run as a user would (the real binary, black box). Fails unless
#  1. on data with a header that is no valid field name
#     ("od280/od315_of_diluted_wines", renamed and the renaming printed), a
#     feature constant on every row (left out, with a note) and declared
#     bounds for one feature (named by its original header), it exits 0,
#     prints the summary, the non-private Newton baseline separates the
#     (separable) data, and no "nan" or "inf" appears anywhere in its output;
#  2. on data whose every feature is constant, without --bounds, it exits
#     non-zero with the message that says so and names a column, and prints
#     no figure;
#  3. a --bounds entry naming no column, or with LO >= HI, is refused;
#  4. at ε = 4 the planner's gradient reports (printed per ε) are 2
#     coordinates per agent at ε/2 and at ε = 1 one at the full ε, and a
#     --coordinates_per_agent the data cannot take is refused.
# Small flags (2,000 agents, one seed, two grid settings of 5 and 10
# rounds) keep it to a few seconds under ASan.
# Usage: logistic_regression_experiment_test.sh <logistic_regression_experiment>
set -euo pipefail
binary=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# 40 rows: the label is 1 exactly when x1 > 0.5 (a wide margin), the
# punctuated column is noise in [0, 4], `const` is always 5 and `pixel`
# (declared 0:16) is label-correlated.
{
  echo "x1,od280/od315_of_diluted_wines,const,pixel,label"
  for i in $(seq 0 39); do
    if [ "$i" -lt 20 ]; then x="0.$((1 + i % 4))"; y=0; p=$((i % 5)); else
      x="0.$((6 + i % 4))"; y=1; p=$((10 + i % 7)); fi
    echo "$x,$(( (i * 7) % 5 )).$((i % 10)),5,$p,$y"
  done
} > "$dir/good.csv"
{
  echo "a,b c,label"
  for i in $(seq 0 19); do echo "1.5,-2,$((i % 2))"; done
} > "$dir/constant.csv"

small=(--agents=2000 --seeds=1 --select_seeds=1 --epsilon=1
       --grid_learning_rate=4 --grid_rounds=5,10 --grid_clip=0.25
       --grid_schedule=constant --per_round_epsilon=1)

# 1. Runs, and prints no NaN.
if ! "$binary" --csv="$dir/good.csv" \
    --bounds='od280/od315_of_diluted_wines=0:5' "${small[@]}" \
    > "$dir/good.out" 2> "$dir/good.err"; then
  cat "$dir/good.err"; fail "the run on good.csv exited non-zero"
fi
cat "$dir/good.out"
if grep -Eiw 'nan|inf|-nan|-inf' "$dir/good.out" "$dir/good.err"; then
  fail "the output shows a NaN or infinity (above)"
fi
expect() {  # expect FILE TEXT: FILE contains TEXT (fixed string)
  grep -qF -- "$2" "$1" || fail "$1 lacks: $2"
}
expect "$dir/good.out" "od280/od315_of_diluted_wines -> od280_od315_of_diluted_wines"
expect "$dir/good.out" "4 features (1 with declared bounds"
expect "$dir/good.out" "have no declared bounds, so its model leaves them out: \"const\" (= 5)"
expect "$dir/good.out" "non-private Newton (λ = 0.001): train 1.000, test 1.000"
expect "$dir/good.out" "## Summary"
grep -Eq '^\| 1 \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± ' "$dir/good.out" ||
  fail "no summary row with figures for ε = 1"

# 2. Every feature constant, no bounds: a clear refusal before any figure.
if "$binary" --csv="$dir/constant.csv" "${small[@]}" \
    > "$dir/constant.out" 2> "$dir/constant.err"; then
  fail "the run on constant.csv exited 0"
fi
cat "$dir/constant.err"
expect "$dir/constant.err" "every feature is constant over the"
expect "$dir/constant.err" "\"b c\""
expect "$dir/constant.err" "--bounds"
if grep -q "Newton" "$dir/constant.out"; then
  fail "figures were printed before the refusal"
fi

# 3. Bad --bounds entries are refused, naming the entry.
for bad in 'nosuch=0:1' 'x1=2:1' 'x1=0:nan' '*=0:1,*=0:2' 'label=0:1'; do
  if "$binary" --csv="$dir/good.csv" --bounds="$bad" "${small[@]}" \
      > /dev/null 2> "$dir/bad.err"; then
    fail "--bounds='$bad' was accepted"
  fi
  expect "$dir/bad.err" "--bounds entry"
done
# 4. The planner's k at each ε, and a k beyond the 4 coordinates refused.
if ! "$binary" --csv="$dir/good.csv" "${small[@]}" --epsilon=1,4 \
    --per_round_epsilon=0 > "$dir/plan.out" 2> "$dir/plan.err"; then
  cat "$dir/plan.err"; fail "the run at ε = 1 and 4 exited non-zero"
fi
expect "$dir/plan.out" "ε = 1, the planner's gradient reports: 1 coordinate per agent at the full ε = 1, hybrid"
expect "$dir/plan.out" "ε = 4, the planner's gradient reports: 2 coordinates per agent at ε/2 = 2 each, hybrid"
if "$binary" --csv="$dir/good.csv" "${small[@]}" --coordinates_per_agent=5 \
    > /dev/null 2> "$dir/k.err"; then
  fail "--coordinates_per_agent=5 was accepted for 4 coordinates"
fi
expect "$dir/k.err" "coordinates per agent must be in [1, 4]"
[ "$status" = 0 ] && echo "PASS"
exit "$status"
