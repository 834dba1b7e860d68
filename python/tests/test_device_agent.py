"""The agent's C library from Python (ldp_device over ctypes), as an app
embeds it: real ldp-server, gRPC calls made by grpcio, the library only
turning bytes into bytes; the bindings prove the ABI."""

import json
import os
import subprocess
import sys
from pathlib import Path

from ldp_analyst import Client
from ldp_device import library_path
from server_process import running_server, wait_until_serving
from study_specs import COUNTING

TESTS = Path(__file__).resolve().parent


def device_environment():
    """The environment for device_agents.py: the library and, for a
    sanitizer build, its runtime preloaded (``$LDP_AGENT_PRELOAD``, set by
    deploy/test.sh), with leak checks off for the uninstrumented Python."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS.parent), str(TESTS)] +
                                        sys.path)
    preload = os.environ.get("LDP_AGENT_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = preload
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def run_devices(server, tmp_path, agents, cycles, records=None, caps=None):
    """device_agents.py's JSON lines; `records` and `caps` as it reads them."""
    extra = []
    if records is not None or caps is not None:
        path = tmp_path / "records.json"
        path.write_text(json.dumps({"records": records or [{"smoker": True}],
                                    "caps": caps or {}}))
        extra = [str(path)]
    out = subprocess.run(
        [sys.executable, str(TESTS / "device_agents.py"), server.address,
         str(tmp_path), str(agents), str(cycles)] + extra,
        env=device_environment(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_device_agents_answer_a_study_through_the_c_library(build_dir, tmp_path):
    assert library_path().is_file(), f"{library_path()} not built"
    # A server of its own: the session's has other studies, whose tasks
    # these agents would also get.
    (tmp_path / "server").mkdir()
    with running_server(build_dir, tmp_path / "server") as server:
        wait_until_serving(server.address, server.token_file)
        with Client(server.address, server.token_file) as client:
            study = client.create_study(COUNTING)
            devices = run_devices(server, tmp_path, agents=6, cycles=2)
            budgets = {d["agent_id"]: client.budget(d["agent_id"], study.study_id)
                       for d in devices}
    assert len(devices) == 6
    for device in devices:
        assert device["version"] == ["1.1.0", 1]
        first, second = device["cycles"]
        # The first poll gets the study's one task; the report is accepted.
        assert (first["answered"], first["refused"]) == (1, 0)
        assert (first["uploaded"], first["accepted"]) == (1, 1)
        # Nothing is left to send, and the second poll asks nothing new.
        assert second["uploaded"] == 0
        assert device["pending_after"] == 0
        # The agent's own ledger and the server's agree: ε = 1, once.
        assert device["spent"] == 1_000_000_000
        assert list(budgets[device["agent_id"]]["spent_nanos"]) == [1_000_000_000]
