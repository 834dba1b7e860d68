"""Starting and stopping a real ldp-server for the tests."""

import contextlib
import secrets
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ldp_analyst import Client, LdpError

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


def wait_for_port(port_file, process, server_log):
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


def wait_until_serving(address, token_file, tls=None):
    """The port file is written once the server listens; one analyst call
    proves the service answers and the token is the one it holds."""
    deadline = time.monotonic() + START_TIMEOUT_S
    with Client(address, token_file, tls=tls, timeout=5) as client:
        while True:
            try:
                client.list_studies()
                return
            except LdpError as e:
                if time.monotonic() > deadline:
                    pytest.fail(f"ldp-server at {address} does not answer: {e}")
                time.sleep(0.1)


@contextlib.contextmanager
def running_server(build_dir, directory, *flags):
    """ldp-server on a free port (--port=0) and a fresh SQLite database in
    ``directory``, with an analyst token written beforehand where the server
    looks for it by default (<db>.analyst_token), as the README's commands
    use it. Stopped on exit, and it must exit cleanly (ASan reports leaks
    then)."""
    token_file = directory / "ldp.db.analyst_token"
    token_file.write_text(secrets.token_hex(16) + "\n")
    token_file.chmod(0o600)
    port_file, log = directory / "port", directory / "server.log"
    with open(log, "w") as log_stream:
        process = subprocess.Popen(
            [str(build_dir / "server" / "ldp-server"), f"--db={directory / 'ldp.db'}",
             "--port=0", f"--port_file={port_file}", "--drain_seconds=0",
             "--log_level=warning", *flags],
            stdout=log_stream, stderr=subprocess.STDOUT, cwd=directory)
    try:
        port = wait_for_port(port_file, process, log)
        yield Server(address=f"127.0.0.1:{port}", token_file=token_file,
                     directory=directory, build_dir=build_dir, process=process, log=log)
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
