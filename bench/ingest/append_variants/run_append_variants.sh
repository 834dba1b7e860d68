#!/usr/bin/env bash
# The batch append's statement, inside PostgreSQL alone: its input from
# bound arrays (as ldp-server sends it) against binary COPY into a staging
# table, and against the floor of plain inserts (append_variants.sql says
# what each runs). On a throwaway local cluster
# (tests/postgres/with_postgres.sh, fsync on, shared_buffers 1GB as in the
# other benchmarks, max_wal_size 8GB so that no checkpoint lands inside a
# run), every variant on fresh tables, rounds interleaved; prints the CPU
# of the backend that ran it, per report.
#
# What it leaves out is what the server adds: the protocol, parsing and
# binding, other sessions and the group commit's waits;
# ../run_append_profile.sh measures the whole path.
#
# Usage: bench/ingest/append_variants/run_append_variants.sh
# Environment: BATCHES (default 1000, of 1000 reports each), ROUNDS (2),
# VARIANTS ("arrays copy split floor").
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "run_append_variants.sh: no arguments but --help" >&2; exit 2 ;;
esac
HERE="$(cd "$(dirname "$0")" && pwd)"
export BATCHES="${BATCHES:-1000}" ROUNDS="${ROUNDS:-2}"
export VARIANTS="${VARIANTS:-arrays copy split floor}"
if [ -z "${LDP_TEST_POSTGRES_URL:-}" ]; then
  export LDP_PG_SETTINGS="shared_buffers = 1GB
max_wal_size = 8GB
checkpoint_timeout = 1h"
  exec bash "$HERE/../../../tests/postgres/with_postgres.sh" bash "$0"
fi

export PGOPTIONS="-c client_min_messages=warning"
P=(psql -X -q -v ON_ERROR_STOP=1 -d "$LDP_TEST_POSTGRES_URL")
# The COPY files must be readable by the server's OS user.
FILES="$(mktemp -d "${TMPDIR:-/tmp}/append-variants.XXXXXX")"
trap 'rm -rf "$FILES"' EXIT
chmod 777 "$FILES"
"${P[@]}" -f "$HERE/append_variants.sql"
"${P[@]}" <<SQL
CREATE TABLE arrays AS
SELECT b AS batch,
       array_agg(task_id ORDER BY ord) AS task_id,
       array_agg(round_id ORDER BY ord) AS round_id,
       array_agg(study_id ORDER BY ord) AS study_id,
       array_agg(agent_id ORDER BY ord) AS agent_id,
       array_agg(report_id ORDER BY ord) AS report_id,
       array_agg(payload ORDER BY ord) AS payload,
       array_agg(eps ORDER BY ord) AS eps,
       array_agg(cap ORDER BY ord) AS cap,
       array_agg(received_at ORDER BY ord) AS received_at
FROM generate_series(0, $BATCHES - 1) b, LATERAL batch_input(b, 1000)
GROUP BY b;
CREATE UNIQUE INDEX ON arrays(batch);
DO \$\$ BEGIN
  FOR b IN 0..$BATCHES - 1 LOOP
    EXECUTE format('COPY (SELECT * FROM batch_input(%s, 1000)) TO %L '
                   'WITH (FORMAT binary)', b, '$FILES/' || b || '.bin');
  END LOOP;
END \$\$;
SQL

# The store's tables as migration 1 creates them, empty.
fresh_tables() {
  "${P[@]}" <<'SQL'
DROP TABLE IF EXISTS reports, ledger, rounds, staging;
CREATE UNLOGGED TABLE staging(task_id int8, round_id int8, study_id int8,
  agent_id int8, report_id bytea, payload bytea, eps int8, cap int8,
  received_at int8, ord int8);
CREATE TABLE rounds(round_id bigint PRIMARY KEY, state int);
INSERT INTO rounds VALUES (1, 1);
CREATE TABLE reports(task_id bigint PRIMARY KEY, round_id bigint NOT NULL,
  agent_id bigint NOT NULL, report_id bytea NOT NULL, payload bytea NOT NULL,
  received_at bigint NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  writer bigint NOT NULL DEFAULT 0);
CREATE INDEX reports_xid ON reports(xid);
CREATE TABLE ledger(agent_id bigint, study_id bigint,
  spent_nanos bigint NOT NULL, cap_nanos bigint NOT NULL,
  PRIMARY KEY(agent_id, study_id)) WITH (fillfactor=70);
CHECKPOINT;
SQL
}

echo "# append statement variants, $(date -u '+%Y-%m-%d %H:%M UTC'); $BATCHES batches of 1000 reports"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -sr)"
for round in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    case "$v" in
      arrays|split|floor) call="CALL run_$v($BATCHES, 1000)" ;;
      copy) call="CALL run_copy($BATCHES, 1000, '$FILES')" ;;
      *) echo "run_append_variants.sh: unknown variant '$v'" >&2; exit 2 ;;
    esac
    fresh_tables
    # The backend's own CPU ticks around the call, read from /proc.
    "${P[@]}" -At <<SQL
SELECT pg_backend_pid() AS pid \gset
\setenv LDP_BACKEND :pid
\! awk '{print \$14 + \$15}' /proc/\$LDP_BACKEND/stat > $FILES/cpu.before
$call;
\! awk '{print \$14 + \$15}' /proc/\$LDP_BACKEND/stat > $FILES/cpu.after
SQL
    stored="$("${P[@]}" -At -c "SELECT (SELECT count(*) FROM reports) = $BATCHES * 1000 AND (SELECT count(*) FROM ledger) = $BATCHES * 1000")"
    [ "$stored" = t ] || { echo "run_append_variants.sh: $v did not store every report" >&2; exit 1; }
    python3 - "$v" "$round" "$(cat "$FILES/cpu.before")" "$(cat "$FILES/cpu.after")" "$BATCHES" <<'EOF'
import os, sys
v, r, before, after, batches = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:5]), int(sys.argv[5])
us = (after - before) / os.sysconf("SC_CLK_TCK") * 1e6 / (batches * 1000)
print(f"round {r} {v:<7} {us:6.2f} us of backend CPU per report")
EOF
  done
done
