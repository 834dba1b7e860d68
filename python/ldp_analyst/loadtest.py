"""Fill a study from Python by running ``ldp-loadtest``.

ldp-loadtest creates its own study (a histogram of ``item`` and the mean of
``value``, or with ``workload=`` one workload question) and runs a population
of real agent sessions against it; its simulated agents answer only that
study's tasks. So the load test is how a notebook gets a study with
reports *and* the truth to compare with: this module runs the binary, reads
the study id it printed and the truth from its ``--out`` directory
(``estimates.csv``), and hands both back.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import LoadtestError
from .stubs import CHECKOUT
from .truth import load_truth

CREATED = re.compile(r"^Created study (\d+)", re.MULTILINE)


@dataclass
class LoadtestRun:
    """What one ldp-loadtest run left behind.

    Attributes:
        study_id: the study it created and filled.
        truth: ``{question_id: [true values]}`` over the agents whose report
            was acknowledged (what each estimate describes).
        out_dir: its ``--out`` directory (summary.json, estimates.csv, SVGs).
        summary: summary.json: configuration, counts, throughput, latency.
        stdout: what it printed.
    """

    study_id: int
    truth: dict
    out_dir: Path
    summary: dict = field(default_factory=dict)
    stdout: str = ""


def loadtest_binary(binary=None):
    """The ldp-loadtest to run: ``binary``, else ``$LDP_LOADTEST``, else
    ``<checkout>/$LDP_BUILD_DIR/tools/ldp-loadtest`` (``build`` by default),
    else the one on PATH."""
    if binary is None:
        binary = os.environ.get("LDP_LOADTEST")
    if binary is None:
        build = Path(os.environ.get("LDP_BUILD_DIR", "build"))
        candidate = (build if build.is_absolute() else CHECKOUT / build) / "tools" / "ldp-loadtest"
        binary = str(candidate) if candidate.is_file() else shutil.which("ldp-loadtest")
    if binary is None or not Path(binary).is_file():
        raise LoadtestError(
            f"ldp-loadtest not found (looked at {binary or 'build/tools/ldp-loadtest and PATH'}): "
            "build it with `cmake --build build --target ldp-loadtest`, or pass binary= "
            "or set LDP_LOADTEST / LDP_BUILD_DIR")
    return str(binary)


def _flag(name, value):
    if value is True:
        return f"--{name}"
    if value is False:
        return f"--{name}=false"
    return f"--{name}={value}"


def _tls_flags(tls):
    if tls is None or tls is False:
        return []
    if isinstance(tls, (str, os.PathLike)):
        return [_flag("tls_ca_file", os.fspath(tls))]
    raise LoadtestError("run_loadtest needs the server's CA certificate file: create the "
                        "Client with tls=<CA file>, or pass tls_ca_file=")


def run_loadtest(client, agents=2000, seed=1, out=None, binary=None, timeout=None, **flags):
    """Runs ldp-loadtest against ``client``'s server; returns a :class:`LoadtestRun`.

    Args:
        client: a :class:`~ldp_analyst.client.Client`; its server, token file
            and TLS CA file are passed on.
        agents: simulated agents (``--agents``).
        seed: seed of the synthetic population (``--seed``).
        out: the ``--out`` directory; None = a new temporary directory.
        binary: the ldp-loadtest executable (see :func:`loadtest_binary`).
        timeout: seconds before the run is killed; None = no limit.
        **flags: any other ldp-loadtest flag by name, e.g. ``workload="prefix"``,
            ``domain=16``, ``distribution="gaussian"``, ``epsilon=2``,
            ``strategy="hierarchical"`` (``build/tools/ldp-loadtest --help``).
    """
    out_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="ldp-loadtest-"))
    flags.setdefault("progress", "none")
    command = [loadtest_binary(binary), _flag("server", client.server),
               _flag("analyst_token_file", client.token_file), _flag("agents", agents),
               _flag("seed", seed), _flag("out", out_dir), *_tls_flags(client.tls)]
    command += [_flag(name, value) for name, value in flags.items()]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise LoadtestError(f"ldp-loadtest did not finish in {timeout} s") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise LoadtestError(f"ldp-loadtest exited with {done.returncode}: {tail}")
    created = CREATED.search(done.stdout)
    if created is None:
        raise LoadtestError("ldp-loadtest did not print 'Created study N'; its output "
                            f"began: {done.stdout[:200]!r}")
    summary_path = out_dir / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    return LoadtestRun(study_id=int(created.group(1)),
                       truth=load_truth(out_dir / "estimates.csv"), out_dir=out_dir,
                       summary=summary, stdout=done.stdout)
