"""A real ldp-server for the tests, and studies with reports in it.

The binaries come from ``$LDP_BUILD_DIR`` (default ``build``, relative to the
checkout): deploy/test.sh runs these tests against the ASan build
(``build-asan``), whose sanitizer options the server and ldp-loadtest inherit
from the environment. One server serves the whole session (starting it is
the slow part under ASan); every test makes its own study unless it only
reads one of the shared load-test studies below.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports pyplot

from ldp_analyst import Client, run_loadtest  # noqa: E402
from ldp_analyst.stubs import CHECKOUT  # noqa: E402

from server_process import running_server, wait_until_serving  # noqa: E402


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


@pytest.fixture(scope="session")
def server(build_dir, tmp_path_factory):
    """The session's plaintext ldp-server (see running_server), relay
    service on so that the shared studies fill in bulk mode (fast under
    ASan)."""
    with running_server(build_dir, tmp_path_factory.mktemp("ldp-server"),
                        "--relay_service") as s:
        wait_until_serving(s.address, s.token_file)
        yield s


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
