"""The README's five-line Python session, run exactly as the README shows it.

The snippet lives in python/examples/five_lines.py; the README quotes it
verbatim (checked here). It runs in the server's directory, where the
analyst token is ldp.db.analyst_token as for a server started with
--db=ldp.db, and reaches the test's server through $LDP_SERVER.
"""

import os
import subprocess
import sys

from ldp_analyst.stubs import CHECKOUT

SNIPPET = CHECKOUT / "python" / "examples" / "five_lines.py"
README = CHECKOUT / "README.md"


def test_readme_quotes_the_snippet_verbatim():
    snippet = SNIPPET.read_text(encoding="utf-8")
    assert len(snippet.strip().splitlines()) == 5
    readme = README.read_text(encoding="utf-8")
    assert f"```python\n{snippet}```\n" in readme


def test_snippet_creates_a_study_runs_the_load_test_and_plots(server, client):
    before = set(client.list_studies().study_id)
    plot = server.directory / "prefix.png"
    plot.unlink(missing_ok=True)
    env = dict(os.environ, LDP_SERVER=server.address, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(
                   p for p in (str(CHECKOUT / "python"), os.environ.get("PYTHONPATH")) if p))
    done = subprocess.run([sys.executable, str(SNIPPET)], cwd=server.directory, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    new = client.list_studies().set_index("study_id").drop(index=list(before))
    assert len(new) == 1
    study = new.iloc[0]
    assert study.display_name.startswith("ldp-loadtest: prefix workload, 2000 agents")
    assert study.num_reports == 2000
