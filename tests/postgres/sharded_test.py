#!/usr/bin/python3
"""Two shards under load: ldp-server on two PostgreSQL servers (each a
shard, the first also the catalog) while ldp-loadtest drives agent
sessions, and the second shard's server is stopped for 20 s in the middle.

  sharded_test.py LDP_SERVER LDP_LOADTEST LDP_CLI [--agents N]
                  [--outage_seconds S]

What must hold, read from the databases themselves:
  - every agent's report acknowledged, and the load test saw no failure:
    the down shard's agents were told UNAVAILABLE and tried again;
  - the other shard's agents kept reporting while it was down: the load
    test starts agents at a fixed --rate, with more workers than the
    outage can hold up, and half of those it starts meanwhile are the
    first shard's;
  - nothing lost or doubled: the study's stored reports are the
    acknowledged ones, one per agent, each agent charged once;
  - no agent's enrollment, report or ledger row on another shard than
    its id maps to (ShardMap: logical shard (id / 1024) % 256, the first
    128 on the first database);
  - the round (one RAPPOR question, so that its quorum can be every
    agent) closes at its quorum and answers from per-shard statistics:
    each shard stores one row of them, and a sharded ldp-server started
    after every report row is deleted answers exactly as before;
  - one database gives the same estimates: the shards' rows copied into
    a single database (statistics left behind), an unsharded ldp-server
    on it answers the study's results exactly as the sharded one did
    (JSON compared field for field).
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

PGBIN = os.environ.get("LDP_PGBIN", "/usr/lib/postgresql/15/bin")
EPSILON_NANOS = 1_000_000_000  # ldp-loadtest's default --epsilon=1
# Session workers: more than the agents that start during the outage
# (--rate × its length), so that the down shard's agents, each holding a
# worker while it retries, leave workers for the other shard's agents.
THREADS = 320
# Rows whose agent is on the second of two shards.
ON_SECOND = "(agent_id / 1024) % 256 >= 128"


def as_owner(argv):
    """PostgreSQL refuses to run as root: then as the postgres user."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.getuid() == 0 \
        else argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A throwaway PostgreSQL 15 server in `root`, with a database ldp."""

    def __init__(self, root):
        self.data = os.path.join(root, "data")
        self.log = os.path.join(root, "server.log")
        self.port = free_port()
        os.makedirs(root)
        if os.getuid() == 0:
            subprocess.run(["chown", "postgres:", root], check=True)
        subprocess.run(as_owner([f"{PGBIN}/initdb", "-D", self.data, "-U",
                                 "postgres", "-A", "trust", "-E", "UTF8",
                                 "--no-instructions"]),
                       check=True, capture_output=True)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                    f"unix_socket_directories = '{root}'\n")
        self.start()
        subprocess.run([f"{PGBIN}/createdb", "-h", "127.0.0.1", "-p",
                        str(self.port), "-U", "postgres", "ldp"], check=True)

    def url(self, db="ldp"):
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def start(self):
        subprocess.run(as_owner([f"{PGBIN}/pg_ctl", "-D", self.data, "-l",
                                 self.log, "-w", "-t", "60", "start"]),
                       check=True, capture_output=True)

    def stop(self, mode="fast"):
        subprocess.run(as_owner([f"{PGBIN}/pg_ctl", "-D", self.data, "-m",
                                 mode, "-w", "stop"]), capture_output=True)


def sql(url, query):
    """One psql query; None when the server does not answer."""
    done = subprocess.run(["psql", url, "-qAt", "-F", ",", "-c", query],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def stored(url):
    return int(sql(url, "SELECT count(*) FROM reports") or 0)


def start_server(argv, port, log):
    server = subprocess.Popen(argv + [f"--port={port}"],
                              stdout=open(log, "w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"ldp-server exited: see {log}")
            time.sleep(0.3)
    raise SystemExit(f"ldp-server did not listen: see {log}")


def results(cli, port, token, study):
    done = subprocess.run([cli, "results", str(study), "--json",
                           f"--server=127.0.0.1:{port}",
                           f"--token_file={token}"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"ldp results: {done.stderr}")
    return json.loads(done.stdout)


def load_with_outage(argv, first, second, agents, outage, work):
    """The load test, with `second` stopped for `outage` seconds once a
    quarter of the reports are in; returns (loadtest exit, reports the
    first shard stored while the second was down)."""
    with open(os.path.join(work, "loadtest.log"), "w") as log:
        load = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    grown = None
    while load.poll() is None:
        if grown is None and stored(first.url()) + stored(second.url()) \
                >= agents // 4:
            second.stop("immediate")
            before = stored(first.url())
            time.sleep(outage)
            grown = stored(first.url()) - before
            second.start()
            print(f"second shard stopped for {outage} s: the first stored "
                  f"{grown} reports meanwhile", flush=True)
        time.sleep(0.2)
    return load.returncode, grown


def check_rows(first, second, agents, summary):
    failures = []
    if summary["errors"]:
        failures.append(f"load test errors {summary['errors']}")
    if summary["reports_accepted"] != agents:
        failures.append(f"acknowledged {summary['reports_accepted']} of "
                        f"{agents} reports")
    totals = {"reports": 0, "ledger": 0, "agents": 0}
    for shard, cluster in enumerate((first, second)):
        wrong = ON_SECOND if shard == 0 else f"NOT ({ON_SECOND})"
        for table in totals:
            count = sql(cluster.url(), f"SELECT count(*), count(*) FILTER "
                        f"(WHERE {wrong}) FROM {table}")
            rows, misplaced = map(int, count.split(","))
            totals[table] += rows
            if misplaced:
                failures.append(f"{misplaced} {table} rows on shard "
                                f"{shard + 1} belong to the other")
        charged = sql(cluster.url(), "SELECT count(*) FROM ledger WHERE "
                      f"spent_nanos <> {EPSILON_NANOS}")
        if charged != "0":
            failures.append(f"{charged} agents on shard {shard + 1} not "
                            "charged exactly once")
    if totals["reports"] != agents or totals["ledger"] != agents:
        failures.append(f"stored {totals}, want {agents} reports and "
                        "ledger rows")
    print(f"stored over both shards: {totals}", flush=True)
    return failures


def wait_closed(url, study):
    """Until the study's round is closed in the catalog (at quorum)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        if sql(url, f"SELECT count(*) FROM rounds WHERE study_id = {study} "
               "AND state <> 1") == "1":
            return True
        time.sleep(0.2)
    return False


def check_statistics(first, second, study):
    """One row of statistics per shard for the study's round."""
    failures = []
    for shard, cluster in enumerate((first, second)):
        rows = sql(cluster.url(), "SELECT count(*) FROM round_statistics s "
                   "JOIN rounds r USING (round_id) WHERE r.study_id = "
                   f"{study}")
        if rows != "1":
            failures.append(f"shard {shard + 1} holds {rows} rows of the "
                            "round's statistics, want 1")
    return failures


def merge_into_one(first, second):
    """The shards' rows in a new database on the first server: the
    catalog's studies and rounds, every shard's agents, reports, ledger
    and deltas."""
    subprocess.run([f"{PGBIN}/createdb", "-h", "127.0.0.1", "-p",
                    str(first.port), "-U", "postgres", "merged"], check=True)
    merged = first.url("merged")
    schema = subprocess.run(["pg_dump", "-s", "-O", "-x", first.url()],
                            capture_output=True, text=True, check=True).stdout
    subprocess.run(["psql", "-q", merged], input=schema, text=True,
                   check=True, capture_output=True)
    copies = [(first, t) for t in ("schema_migrations", "studies", "rounds",
                                   "id_blocks")]
    copies += [(c, t) for c in (first, second)
               for t in ("agents", "reports", "ledger", "report_deltas")]
    for cluster, table in copies:
        out = subprocess.run(
            ["psql", cluster.url(), "-c",
             f"\\copy {table} TO STDOUT WITH (FORMAT binary)"],
            capture_output=True, check=True).stdout
        subprocess.run(["psql", merged, "-c",
                        f"\\copy {table} FROM STDIN WITH (FORMAT binary)"],
                       input=out, capture_output=True, check=True)
    # Every report here was stored with its delta, which names its task:
    # no report row is to be read (the two shards' xids are not comparable
    # anyway).
    subprocess.run(["psql", "-q", merged, "-c",
                    "INSERT INTO deltas_since(xid, tasks_xid) "
                    "VALUES ('0', '0')"],
                   check=True, capture_output=True)
    return merged


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server_bin")
    parser.add_argument("loadtest_bin")
    parser.add_argument("cli_bin")
    parser.add_argument("--agents", type=int, default=900)
    parser.add_argument("--rate", type=float, default=30)
    parser.add_argument("--outage_seconds", type=float, default=20)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ldp-sharded.")
    os.chmod(work, 0o755)
    first = Cluster(os.path.join(work, "pg1"))
    second = Cluster(os.path.join(work, "pg2"))
    servers = []
    failures = []
    try:
        token = os.path.join(work, "analyst_token")
        with open(token, "w") as f:
            f.write(os.urandom(16).hex())
        common = [args.server_bin, f"--analyst_token_file={token}"]
        port = free_port()
        servers.append(start_server(
            common + [f"--db={first.url()} {second.url()}"], port,
            os.path.join(work, "server.log")))
        out = os.path.join(work, "run")
        code, grown = load_with_outage(
            [args.loadtest_bin, f"--server=127.0.0.1:{port}",
             f"--analyst_token_file={token}", "--mode=sessions",
             f"--threads={THREADS}", "--agent_attempts=12",
             f"--agents={args.agents}", f"--rate={args.rate}",
             f"--quorum={args.agents}", "--rappor_candidates=32",
             f"--out={out}", "--progress=none"],
            first, second, args.agents, args.outage_seconds, work)
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        if code != 0:
            failures.append(f"load test exit {code}")
        failures += check_rows(first, second, args.agents, summary)
        # Half the agents started during the outage are the first shard's.
        least = args.rate * args.outage_seconds / 8
        if grown is None:
            failures.append("the run ended before the outage")
        elif grown < least:
            failures.append(f"the first shard stored {grown} reports while "
                            f"the second was down, want at least {least:.0f}")
        study = int(sql(first.url(), "SELECT max(study_id) FROM studies"))
        if not wait_closed(first.url(), study):
            failures.append("the round did not close at its quorum")
        sharded = results(args.cli_bin, port, token, study)
        if not sharded.get("estimates"):
            failures.append(f"the study has no estimates: {sharded}")
        failures += check_statistics(first, second, study)
        merged = merge_into_one(first, second)
        for cluster in (first, second):
            sql(cluster.url(), "DELETE FROM reports")
        port_rows = free_port()
        servers.append(start_server(
            common + [f"--db={first.url()} {second.url()}"], port_rows,
            os.path.join(work, "server-no-rows.log")))
        if results(args.cli_bin, port_rows, token, study) != sharded:
            failures.append("without report rows the sharded server answers "
                            "differently: its estimates read rows")
        port_one = free_port()
        servers.append(start_server(common + [f"--db={merged}"], port_one,
                                    os.path.join(work, "server-one.log")))
        single = results(args.cli_bin, port_one, token, study)
        if sharded != single:
            failures.append("the sharded and the single-database results "
                            f"differ:\n{json.dumps(sharded)}\n"
                            f"{json.dumps(single)}")
        else:
            print("the single database answers the same results", flush=True)
    finally:
        for server in servers:
            server.kill()
            server.wait()
        first.stop()
        second.stop()
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures) + f"\n(logs in {work})")
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
