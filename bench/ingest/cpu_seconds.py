#!/usr/bin/python3
"""CPU seconds (user + system) used so far, read from /proc, for the ingest
benchmarks' per-report CPU columns:

  cpu_seconds.py pids PID...   the processes PID (the servers)
  cpu_seconds.py user NAME     every process of the OS user NAME (each
                               PostgreSQL cluster, with Patroni and etcd)

Each process counts with what its reaped children used (a postmaster's
exited backends). A process that is gone counts nothing.
"""
import os
import pwd
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("pids", "user"):
        sys.exit(__doc__)
    kind, args = sys.argv[1], sys.argv[2:]
    uid = pwd.getpwnam(args[0]).pw_uid if kind == "user" else None
    pids = args if kind == "pids" else filter(str.isdigit, os.listdir("/proc"))
    ticks = 0
    for pid in pids:
        try:
            if uid is not None and os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    print(ticks / os.sysconf("SC_CLK_TCK"))


if __name__ == "__main__":
    main()
