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
# One clang-format for many files (xargs batches them): a process per file
# spends nearly all its time starting up. Each unformatted file is named in
# clang-format's "FILE:LINE:COL: error:" lines.
mapfile -t bad < <(printf '%s\0' "${files[@]}" |
  xargs -0 clang-format --dry-run -Werror 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ "${#bad[@]}" -gt 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from clang-format"
  exit 1
fi
echo "check_format: all ${#files[@]} C and C++ files formatted"
