"""A real ldp-server for the tests, and studies with reports in it.

The binaries come from ``$LDP_BUILD_DIR`` (default ``build``, relative to the
checkout): deploy/test.sh runs these tests against the ASan build
(``build-asan``), whose sanitizer options the server and ldp-loadtest inherit
from the environment. One server serves the whole session (starting it is
the slow part under ASan); every test makes its own study unless it only
reads one of the shared load-test studies below.
"""

import os
import secrets
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports pyplot

from ldp_analyst import Client, LdpError, run_loadtest  # noqa: E402
from ldp_analyst.stubs import CHECKOUT  # noqa: E402

START_TIMEOUT_S = 60  # an ASan server on a busy 2-core machine starts in ~1 s


@dataclass
class Server:
    """A running ldp-server: where it listens and where its files are."""

    address: str
    token_file: Path
    directory: Path
    build_dir: Path
    process: subprocess.Popen
    log: Path

    def log_tail(self, lines=20):
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="session")
def build_dir():
    """``$LDP_BUILD_DIR`` as an absolute path, with the binaries the tests run."""
    build = Path(os.environ.get("LDP_BUILD_DIR", "build"))
    build = build if build.is_absolute() else CHECKOUT / build
    for binary in ("server/ldp-server", "tools/ldp-loadtest"):
        if not (build / binary).is_file():
            pytest.fail(f"{build / binary} not found: build it (cmake --build {build}) or "
                        "point LDP_BUILD_DIR at a build directory that has it")
    os.environ["LDP_BUILD_DIR"] = str(build)  # run_loadtest and the stubs look there
    return build


def _wait_for_port(port_file, process, server_log):
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"ldp-server exited with {process.returncode}:\n"
                        f"{server_log.read_text(errors='replace')}")
        if port_file.is_file() and port_file.read_text().strip():
            return int(port_file.read_text())
        time.sleep(0.05)
    process.kill()
    pytest.fail(f"ldp-server did not listen within {START_TIMEOUT_S} s")


def _wait_until_serving(address, token_file):
    """The port file is written once the server listens; one analyst call
    proves the service answers and the token is the one it holds."""
    deadline = time.monotonic() + START_TIMEOUT_S
    with Client(address, token_file, timeout=5) as client:
        while True:
            try:
                client.list_studies()
                return
            except LdpError as e:
                if time.monotonic() > deadline:
                    pytest.fail(f"ldp-server at {address} does not answer: {e}")
                time.sleep(0.1)


@pytest.fixture(scope="session")
def server(build_dir, tmp_path_factory):
    """ldp-server on a free port (--port=0), a fresh SQLite database and an
    analyst token written beforehand where the server looks for it by
    default (<db>.analyst_token), as the README's commands use it. Relay
    service on, so the shared studies fill in bulk mode (fast under ASan).
    Stopped at the end, and it must exit cleanly (ASan reports leaks then)."""
    directory = tmp_path_factory.mktemp("ldp-server")
    token_file = directory / "ldp.db.analyst_token"
    token_file.write_text(secrets.token_hex(16) + "\n")
    token_file.chmod(0o600)
    port_file, log = directory / "port", directory / "server.log"
    with open(log, "w") as log_stream:
        process = subprocess.Popen(
            [str(build_dir / "server" / "ldp-server"), f"--db={directory / 'ldp.db'}",
             "--port=0", f"--port_file={port_file}", "--drain_seconds=0", "--relay_service",
             "--log_level=warning"],
            stdout=log_stream, stderr=subprocess.STDOUT, cwd=directory)
    try:
        port = _wait_for_port(port_file, process, log)
        address = f"127.0.0.1:{port}"
        _wait_until_serving(address, token_file)
        yield Server(address=address, token_file=token_file, directory=directory,
                     build_dir=build_dir, process=process, log=log)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            returncode = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail("ldp-server did not stop within 30 s of SIGTERM")
    assert returncode == 0, (f"ldp-server exited with {returncode} after SIGTERM:\n"
                             f"{log.read_text(errors='replace')[-4000:]}")


@pytest.fixture
def client(server):
    with Client(server.address, server.token_file) as c:
        yield c


@pytest.fixture(scope="session")
def histogram_run(server, tmp_path_factory):
    """ldp-loadtest's default study (a 16-item Zipf histogram of ``item`` and
    the mean of ``value``), 1000 agents in bulk mode, population seed 1."""
    with Client(server.address, server.token_file) as c:
        return run_loadtest(c, agents=1000, seed=1, mode="bulk",
                            out=tmp_path_factory.mktemp("histogram-run"))


@pytest.fixture(scope="session")
def workload_run(server, tmp_path_factory):
    """A prefix (CDF) workload over 16 items, the planner's strategy, 1000
    agents in bulk mode, population seed 2, and the truth file
    ``--truth_out`` writes."""
    out = tmp_path_factory.mktemp("workload-run")
    with Client(server.address, server.token_file) as c:
        return run_loadtest(c, agents=1000, seed=2, mode="bulk", workload="prefix",
                            domain=16, distribution="gaussian", out=out,
                            truth_out=out / "truth.json")
