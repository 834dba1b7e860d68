#!/usr/bin/python3
"""Failover under load: ldp-server on a Patroni cluster (three nodes: a
primary, a synchronous standby and one more, deploy/postgres/
patroni_cluster.py, with the example's strict synchronous mode) while
ldp-loadtest drives it, and the primary is SIGKILLed in the middle.

  patroni_failover_test.py LDP_SERVER LDP_LOADTEST [--bulk_agents N]
                           [--session_agents N]

Two runs on one cluster:
  1. relay bulk; the primary's machine is lost (Patroni and postmaster
     SIGKILLed): the synchronous standby is promoted, the third node becomes
     its synchronous standby, and the server finds the new primary.
  2. agent sessions; the new primary's postmaster alone is SIGKILLed:
     Patroni restarts it.
Each run kills once a quarter of its agents' reports are in the database.
What must hold for each run, read from the database itself:
  - every agent's report acknowledged (the server's own retries cover the
    failover: the load test sees no failure at all);
  - no acknowledged report lost: the study's stored reports are exactly
    the acknowledged ones, one per agent;
  - none counted or charged twice: one ledger row per agent, each charged
    exactly the study's epsilon once, and the server's estimates count
    each report once;
  - ingest back within 30 s: no run of whole seconds without an
    acknowledgment longer than 28 s, and no upload waited 30 s.
It prints the measured gap (the longest wait for an acknowledgment, and
the seconds with none).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "..", "..", "deploy", "postgres",
                       "patroni_cluster.py")
EPSILON_NANOS = 1_000_000_000  # ldp-loadtest's default --epsilon=1
GAP_LIMIT_SECONDS = 30


def cluster(*args):
    done = subprocess.run([sys.executable, CLUSTER, *args],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"patroni_cluster.py {args[0]}: {done.stderr}")
    return done.stdout.strip()


def sql(url, query):
    """One psql query on the primary; None while there is none."""
    done = subprocess.run(
        ["psql", f"{url}?target_session_attrs=read-write&connect_timeout=2",
         "-qAt", "-F", ",", "-c", query], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def stored(url, after):
    """Reports stored for studies newer than `after`."""
    return sql(url, "SELECT count(*) FROM reports r JOIN rounds o "
               f"ON r.round_id = o.round_id WHERE o.study_id > {after}")


def newest_study(url):
    """The newest study's id (0: none), once the server made its tables."""
    deadline = time.time() + 60
    while time.time() < deadline:
        newest = sql(url, "SELECT coalesce(max(study_id), 0) FROM studies")
        if newest is not None:
            return int(newest)
        time.sleep(0.5)
    raise SystemExit("no studies table: did ldp-server start?")


def run(name, loadtest_argv, url, kill_what, agents, work):
    """One load test, with the primary SIGKILLed a quarter of the way."""
    out = os.path.join(work, name)
    before = newest_study(url)
    with open(os.path.join(work, f"{name}.log"), "w") as log:
        load = subprocess.Popen(loadtest_argv + [f"--agents={agents}",
                                                 f"--out={out}",
                                                 "--progress=none"],
                                stdout=log, stderr=subprocess.STDOUT)
    killed = None
    while load.poll() is None:
        count = stored(url, before)
        if killed is None and count and int(count) >= agents // 4:
            killed = json.loads(cluster("kill", "--what", kill_what, work))
            print(f"{name}: SIGKILLed the {kill_what} of primary "
                  f"{killed['name']} after {count} reports", flush=True)
        time.sleep(0.2)
    return check(name, url, before, agents, killed, load.returncode, work)


def check(name, url, before, agents, killed, returncode, work):
    """What must hold after a run, from the database, the load test's
    summary and the estimates it printed."""
    failures = []
    study = newest_study(url)
    if study == before:
        failures.append("the load test made no study")
    if killed is None:
        failures.append("the run ended before the kill")
    out = os.path.join(work, name)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    if returncode != 0 or summary["errors"]:
        failures.append(f"load test exit {returncode}, errors "
                        f"{summary['errors']}")
    if summary["reports_accepted"] != agents:
        failures.append(f"acknowledged {summary['reports_accepted']} of "
                        f"{agents} reports")
    row = sql(url, "SELECT count(*), count(DISTINCT r.agent_id) FROM reports r"
              f" JOIN rounds o ON r.round_id = o.round_id"
              f" WHERE o.study_id = {study}")
    ledger = sql(url, "SELECT count(*), min(spent_nanos), max(spent_nanos) "
                 f"FROM ledger WHERE study_id = {study}")
    if row != f"{agents},{agents}":
        failures.append(f"stored (reports, agents) {row}, want {agents} each")
    if ledger != f"{agents},{EPSILON_NANOS},{EPSILON_NANOS}":
        failures.append(f"ledger (rows, min, max spent) {ledger}, want "
                        f"{agents} rows each charged {EPSILON_NANOS}")
    # What the server's estimates count, from GetEstimates (the load test
    # prints each question's n): each stored report exactly once.
    with open(os.path.join(work, f"{name}.log")) as f:
        counted = sum(int(n) for n in re.findall(r", n = (\d+),", f.read()))
    if counted != agents:
        failures.append(f"the estimates count {counted} reports, want {agents}")
    gap = summary["ack_latency_seconds"]["max"]
    quiet = longest_quiet(os.path.join(out, "throughput.csv"))
    print(f"{name}: {summary['reports_accepted']} acknowledged, stored "
          f"{row}, ledger {ledger}, estimates count {counted}; longest "
          f"wait for an ack {gap:.1f} s, {quiet} s with none", flush=True)
    # A wait may fall on any call (enroll, poll or upload), and the quiet
    # whole seconds undercount the gap by less than two.
    if gap >= GAP_LIMIT_SECONDS or quiet + 2 > GAP_LIMIT_SECONDS:
        failures.append(f"ingest stopped for {quiet} to {quiet + 2} s (an "
                        f"acknowledgment waited {gap:.1f} s)")
    return failures


def longest_quiet(path):
    """The longest run of whole seconds without an acknowledgment."""
    with open(path) as f:
        counts = [int(line.split(",")[1]) for line in f.readlines()[1:]]
    longest = current = 0
    for count in counts:
        current = current + 1 if count == 0 else 0
        longest = max(longest, current)
    return longest


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server_bin")
    parser.add_argument("loadtest_bin")
    # The defaults suit the sanitizer build of CI; a Release build ingests
    # them before the kill, so measuring there takes more.
    parser.add_argument("--bulk_agents", type=int, default=40_000)
    parser.add_argument("--session_agents", type=int, default=8_000)
    args = parser.parse_args()
    server_bin, loadtest_bin = args.server_bin, args.loadtest_bin
    work = tempfile.mkdtemp(prefix="ldp-failover.")
    os.chmod(work, 0o755)
    port = 26000 + (os.getpid() % 200) * 25
    server = None
    try:
        url = cluster("up", "--nodes", "3", "--port", str(port), work)
        token = os.path.join(work, "analyst_token")
        with open(token, "w") as f:
            f.write(os.urandom(16).hex())
        server_port = port + 22
        server = subprocess.Popen(
            [server_bin, f"--db={url}", f"--port={server_port}",
             "--relay_service", f"--analyst_token_file={token}"],
            stdout=open(os.path.join(work, "server.log"), "w"),
            stderr=subprocess.STDOUT)
        # Calls that fail during the failover are tried again for longer
        # than it lasts.
        base = [loadtest_bin, f"--server=127.0.0.1:{server_port}",
                f"--analyst_token_file={token}", "--agent_attempts=12"]
        failures = run("bulk", base + ["--mode=bulk", "--streams=2"], url,
                       "node", args.bulk_agents, work)
        failures += run("sessions", base + ["--mode=sessions", "--threads=16"],
                        url, "postmaster", args.session_agents, work)
    finally:
        if server is not None:
            server.kill()
            server.wait()
        cluster("down", work)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures) + f"\n(logs in {work})")
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
