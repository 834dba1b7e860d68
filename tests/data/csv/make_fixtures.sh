#!/usr/bin/env bash
# Writes the CSV fixtures of tests/common/csv/csv_reader_test.cc,
# tests/bench/tabular_data_test.cc and
# tests/tools/loadtest_core/population_source_test.cc: one small dataset
# (six rows of the Pima diabetes data: three features and a 0/1 label) as
# real tools write it, so the tests read exactly what users will feed the
# project. The outputs are committed; the tests need neither R nor pandas.
#   r_write_csv.csv    R's write.csv(df, row.names = FALSE): every header
#                      quoted, LF line ends
#   pandas_quoted.csv  pandas to_csv(quoting=csv.QUOTE_NONNUMERIC): headers
#                      quoted, numbers not
#   crlf_bom.csv       pandas as a spreadsheet writes: CRLF line ends and a
#                      UTF-8 byte order mark (encoding="utf-8-sig")
# Needs Rscript (Debian r-base-core) and pandas (python3-pandas); PYTHON
# names the interpreter that has pandas (default python3).
# Usage: bash tests/data/csv/make_fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
python=${PYTHON:-python3}

Rscript --vanilla -e '
df <- data.frame(pregnant = c(6, 1, 8, 1, 0, 5),
                 glucose = c(148, 85, 183, 89, 137, 116),
                 bmi = c(33.6, 26.6, 23.3, 28.1, 43.1, 25.6),
                 label = c(1, 0, 1, 0, 1, 0))
write.csv(df, "r_write_csv.csv", row.names = FALSE)'

"$python" - <<'PY'
import csv
import pandas as pd
df = pd.DataFrame({"pregnant": [6, 1, 8, 1, 0, 5],
                   "glucose": [148, 85, 183, 89, 137, 116],
                   "bmi": [33.6, 26.6, 23.3, 28.1, 43.1, 25.6],
                   "label": [1, 0, 1, 0, 1, 0]})
df.to_csv("pandas_quoted.csv", index=False, quoting=csv.QUOTE_NONNUMERIC)
df.to_csv("crlf_bom.csv", index=False, lineterminator="\r\n",
          encoding="utf-8-sig")
PY
echo "wrote $(pwd)/r_write_csv.csv, pandas_quoted.csv and crlf_bom.csv"
