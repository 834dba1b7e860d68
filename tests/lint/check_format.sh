#!/usr/bin/env bash
# Every C and C++ file the repository tracks is as clang-format (the
# style in .clang-format) would write it. Prints the files that differ and
# exits non-zero if any does; fix them with
#   git ls-files '*.cc' '*.h' '*.c' | xargs clang-format -i
# Usage: check_format.sh REPO_ROOT
set -euo pipefail
cd "${1:?usage: check_format.sh REPO_ROOT}"
command -v clang-format >/dev/null || {
  echo "check_format: clang-format is not installed (deploy/install-deps.sh)" >&2
  exit 1
}
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
if [ "${#files[@]}" -eq 0 ]; then
  echo "check_format: no C or C++ files found: is $PWD a checkout?" >&2
  exit 1
fi
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from clang-format"
  exit 1
fi
echo "check_format: all ${#files[@]} C and C++ files formatted"
