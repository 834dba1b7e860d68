#!/usr/bin/python3
"""A PostgreSQL 15 cluster under Patroni on loopback: etcd plus three (or
two) nodes, a primary and its standbys, for tests and the demo.

  patroni_cluster.py up DIR [--nodes N] [--port P] [--shared_buffers B]
                                                      start; print the URL
  patroni_cluster.py url DIR                          the server's URL
  patroni_cluster.py leader DIR                       the primary, as JSON
  patroni_cluster.py kill DIR --what postmaster|node  SIGKILL the primary's
                                                      postmaster (Patroni
                                                      brings it back) or its
                                                      Patroni too (a lost
                                                      machine: the standby is
                                                      promoted)
  patroni_cluster.py wait DIR [--seconds S]           until every node is up,
                                                      with a primary and a
                                                      sync standby
  patroni_cluster.py down DIR                         stop everything

Every node runs deploy/postgres/patroni.yml.example itself, with only what
differs on one machine replaced (loopback() below): names, addresses, ports,
directories, passwords, and memory sized for a test machine. So what the
tests kill is the configuration an operator copies.

Ports: PostgreSQL on P, P+1, P+2; Patroni's REST API on P+10..; etcd on
P+20 (clients) and P+21 (peers). DIR holds the data, the logs and
cluster.json (ports, pids, passwords; mode 0600). Run as root, the
processes belong to the postgres user, as PostgreSQL requires.

The server's URL names every node, so libpq tries each in turn, and
ldp-server connects only to the one that accepts writes
(target_session_attrs=read-write, its default).
"""
import argparse
import json
import os
import pwd
import secrets
import signal
import subprocess
import sys
import time
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "patroni.yml.example")
PGBIN = os.environ.get("LDP_PGBIN", "/usr/lib/postgresql/15/bin")


def fail(message):
    print(f"patroni_cluster: {message}", file=sys.stderr)
    sys.exit(1)


def owner():
    """The user the processes run as: postgres when we are root."""
    return "postgres" if os.getuid() == 0 else None


def spawn(argv, log, env=None):
    user = owner()
    if user:
        argv = ["runuser", "-u", user, "--"] + argv
    with open(log, "ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)


def chown(path):
    user = owner()
    if user:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def loopback(config, node, state, home):
    """The example, with what differs on one loopback machine replaced."""
    port = state["port"]
    config["name"] = node
    index = int(node[2:]) - 1
    rest = f"127.0.0.1:{port + 10 + index}"
    config["restapi"] = {"listen": rest, "connect_address": rest}
    config["etcd3"] = {"hosts": [f"127.0.0.1:{port + 20}"]}
    dcs = config["bootstrap"]["dcs"]["postgresql"]["parameters"]
    # Sized for a test machine running several nodes, not a database host.
    dcs.update({"max_connections": 100,
                "shared_buffers": state.get("shared_buffers", "128MB"),
                "effective_cache_size": "512MB",
                "maintenance_work_mem": "64MB", "wal_keep_size": "128MB"})
    # Each node's own archive, beside its data directory (where the command
    # runs): a promoted standby re-archives segments the old primary had.
    dcs["archive_command"] = ("test ! -f ../wal-archive/%f && "
                              "cp %p ../wal-archive/%f")
    pg = config["postgresql"]
    address = f"127.0.0.1:{port + index}"
    pg.update({"listen": address, "connect_address": address,
               "data_dir": os.path.join(home, "data"), "bin_dir": PGBIN,
               "pgpass": os.path.join(home, "pgpass")})
    for role, entry in pg["authentication"].items():
        entry["password"] = state["passwords"][role]
    pg["parameters"]["unix_socket_directories"] = home
    # No /dev/watchdog on a test machine.
    config["watchdog"] = {"mode": "off"}
    return config


def node_names(state):
    return [f"pg{i + 1}" for i in range(state["nodes"])]


def start_etcd(state):
    home = os.path.join(state["dir"], "etcd")
    os.makedirs(home, exist_ok=True)
    chown(home)
    client = f"http://127.0.0.1:{state['port'] + 20}"
    peer = f"http://127.0.0.1:{state['port'] + 21}"
    env = dict(os.environ, ETCD_UNSUPPORTED_ARCH="")
    proc = spawn(["etcd", "--name", "etcd1", "--data-dir",
                  os.path.join(home, "data"),
                  "--listen-client-urls", client,
                  "--advertise-client-urls", client,
                  "--listen-peer-urls", peer,
                  "--initial-advertise-peer-urls", peer,
                  "--initial-cluster", f"etcd1={peer}",
                  "--initial-cluster-state", "new"],
                 os.path.join(home, "etcd.log"), env)
    state["pids"]["etcd"] = proc.pid
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{client}/health", timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    fail(f"etcd did not answer on {client}; see {home}/etcd.log")


def start_node(state, node):
    home = os.path.join(state["dir"], node)
    for path in (home, os.path.join(home, "wal-archive")):
        os.makedirs(path, mode=0o700, exist_ok=True)
        chown(path)
    with open(EXAMPLE) as f:
        config = loopback(yaml.safe_load(f), node, state, home)
    path = os.path.join(home, "patroni.yml")
    with open(path, "w") as f:
        yaml.safe_dump(config, f)
    os.chmod(path, 0o600)
    chown(path)
    proc = spawn(["patroni", path], os.path.join(home, "patroni.log"))
    state["pids"][node] = proc.pid


def cluster_view(state):
    """Patroni's view of the cluster from any node that answers."""
    for i in range(state["nodes"]):
        url = f"http://127.0.0.1:{state['port'] + 10 + i}/cluster"
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                return json.load(reply)
        except (OSError, ValueError):
            continue
    return None


def ready(view, nodes):
    """Every node up, one primary, and a synchronous standby."""
    if view is None:
        return False
    members = view["members"]
    # Patroni before 3.0.4 says "running" of a streaming standby.
    up = [m for m in members if m.get("state") in ("running", "streaming")]
    roles = {m.get("role") for m in up}
    return len(up) == nodes and {"leader", "sync_standby"} <= roles


def wait_ready(state, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if ready(cluster_view(state), state["nodes"]):
            return
        time.sleep(0.5)
    fail(f"not all nodes up with a primary and a synchronous standby after "
         f"{seconds} s;"
         f" see {state['dir']}/pg*/patroni.log")


def url(state):
    hosts = ",".join(f"127.0.0.1:{state['port'] + i}"
                     for i in range(state["nodes"]))
    return (f"postgresql://postgres:{state['passwords']['superuser']}"
            f"@{hosts}/ldp")


def leader(state):
    view = cluster_view(state)
    for member in (view or {}).get("members", []):
        if member.get("role") == "leader":
            node = member["name"]
            pidfile = os.path.join(state["dir"], node, "data", "postmaster.pid")
            with open(pidfile) as f:
                postmaster = int(f.readline())
            return {"name": node, "port": member["port"],
                    "postmaster_pid": postmaster,
                    "patroni_pid": state["pids"][node]}
    fail("no primary now")


def create_database(state):
    env = dict(os.environ, PGPASSWORD=state["passwords"]["superuser"])
    base = url(state).rsplit("/", 1)[0] + "/postgres"
    deadline = time.time() + 30
    while True:
        done = subprocess.run(
            ["psql", f"{base}?target_session_attrs=read-write", "-qAt", "-c",
             "SELECT 1 FROM pg_database WHERE datname = 'ldp'"],
            env=env, capture_output=True, text=True)
        if done.returncode == 0:
            break
        if time.time() > deadline:
            fail(f"psql on the primary: {done.stderr.strip()}")
        time.sleep(0.5)
    if done.stdout.strip() != "1":
        subprocess.run(["psql", f"{base}?target_session_attrs=read-write",
                        "-qc", "CREATE DATABASE ldp"], env=env, check=True)


def load(directory):
    try:
        with open(os.path.join(directory, "cluster.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        fail(f"no cluster in {directory} (run `up` first)")


def save(state):
    path = os.path.join(state["dir"], "cluster.json")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
              "w") as f:
        json.dump(state, f, indent=2)


def up(args):
    directory = os.path.abspath(args.dir)
    if os.path.exists(os.path.join(directory, "cluster.json")):
        fail(f"{directory} already holds a cluster; `down` it first")
    if not 2 <= args.nodes <= 3:
        fail(f"--nodes must be 2 or 3, got {args.nodes}")
    os.makedirs(directory, exist_ok=True)
    chown(directory)
    state = {"dir": directory, "nodes": args.nodes, "port": args.port,
             "shared_buffers": args.shared_buffers, "pids": {}, "passwords": {
                 role: secrets.token_hex(16)
                 for role in ("superuser", "replication", "rewind")}}
    save(state)
    start_etcd(state)
    save(state)
    for node in node_names(state):
        start_node(state, node)
        save(state)
    wait_ready(state, args.seconds)
    create_database(state)
    print(url(state))


def stop_pid(pid, sig):
    """Signals the process group `pid` leads (runuser and what it runs, or
    a postmaster and its backends)."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def down(args):
    directory = os.path.abspath(args.dir)
    if not os.path.exists(os.path.join(directory, "cluster.json")):
        return
    state = load(directory)
    nodes = [state["pids"][n] for n in node_names(state) if n in state["pids"]]
    # runuser passes SIGTERM on to Patroni, which stops its PostgreSQL (in
    # a process group of its own) before it exits.
    for pid in nodes:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.time() + 30
    while any(alive(p) for p in nodes) and time.time() < deadline:
        time.sleep(0.2)
    for node in node_names(state):
        pidfile = os.path.join(directory, node, "data", "postmaster.pid")
        if os.path.exists(pidfile):
            with open(pidfile) as f:
                stop_pid(int(f.readline()), signal.SIGKILL)
    for pid in nodes + [state["pids"].get("etcd", 0)]:
        if pid:
            stop_pid(pid, signal.SIGKILL)
    # A PostgreSQL that Patroni was starting as it stopped has no pid file
    # yet; anything still running from this directory goes too.
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if directory.encode() + b"/" in f.read():
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    os.remove(os.path.join(directory, "cluster.json"))


def kill(args):
    state = load(os.path.abspath(args.dir))
    primary = leader(state)
    if args.what == "node":  # Patroni first, or it restarts PostgreSQL
        stop_pid(primary["patroni_pid"], signal.SIGKILL)
    os.kill(primary["postmaster_pid"], signal.SIGKILL)
    print(json.dumps(primary))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("up", help="start etcd and the nodes")
    start.add_argument("--nodes", type=int, default=3,
                       help="3, or 2 (then losing one stops writes: the "
                       "example's synchronous_mode_strict)")
    start.add_argument("--port", type=int, default=25432)
    start.add_argument("--shared_buffers", default="128MB",
                       help="each node's (PostgreSQL units, e.g. 1GB)")
    start.add_argument("--seconds", type=int, default=120,
                       help="how long to wait for a ready cluster")
    wait = commands.add_parser("wait", help="wait for a ready cluster")
    wait.add_argument("--seconds", type=int, default=120)
    commands.add_parser("url", help="print the server's URL")
    commands.add_parser("leader", help="print the primary as JSON")
    killer = commands.add_parser("kill", help="SIGKILL the primary")
    killer.add_argument("--what", choices=("postmaster", "node"),
                        default="postmaster")
    commands.add_parser("down", help="stop everything")
    for command in commands.choices.values():
        command.add_argument("dir")
    args = parser.parse_args()
    if args.command == "up":
        up(args)
    elif args.command == "down":
        down(args)
    elif args.command == "kill":
        kill(args)
    elif args.command == "wait":
        wait_ready(load(os.path.abspath(args.dir)), args.seconds)
    elif args.command == "url":
        print(url(load(os.path.abspath(args.dir))))
    else:
        print(json.dumps(leader(load(os.path.abspath(args.dir)))))


if __name__ == "__main__":
    main()
