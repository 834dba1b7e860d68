"""`ldp page`, the live study page, as an analyst's browser sees it.

A real ``ldp page`` process polls the session's ldp-server; Debian's
headless Chromium loads the page while ldp-loadtest fills a study, runs
the page's script, and its DOM is checked for the study and its numbers
against what the server itself says. Plain HTTP requests check that the
data answers only the analyst token, and the HTTPS and plaintext rules.
"""

import html.parser
import os
import shutil
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from ldp_analyst.stubs import CHECKOUT

START_TIMEOUT_S = 60
BROWSER_TIMEOUT_S = 240
# The load test runs ~30 s (600 agents at 20 per second), so the page is
# loaded while the study fills, with a wide margin for a slow browser start.
LOADTEST_AGENTS, LOADTEST_RATE = 600, 20


class PageFields(html.parser.HTMLParser):
    """The text of every data-field element, per study section
    (data-study-id; "page" outside any), and the charts of each section:
    how many, and how many bars and error bars they hold."""

    def __init__(self):
        super().__init__()
        self.fields = {"page": {}}
        self.charts = {}
        self.marks = {}
        self.body_state = None
        self._study = "page"
        self._field = None
        self._text = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body_state = attrs.get("data-state")
        if tag == "section" and "data-study-id" in attrs:
            self._study = int(attrs["data-study-id"])
            self.fields[self._study] = {}
            self.charts[self._study] = 0
            self.marks[self._study] = {"bar": 0, "interval": 0}
        if tag == "svg" and self._study != "page":
            self.charts[self._study] += 1
        if self._study != "page" and attrs.get("class") in ("bar", "interval"):
            self.marks[self._study][attrs["class"]] += 1
        if "data-field" in attrs:
            self._field, self._text = attrs["data-field"], []

    def handle_data(self, data):
        if self._field is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "section":
            self._study = "page"
        elif self._field is not None and tag in ("td", "span", "time", "p"):
            self.fields[self._study].setdefault(self._field, []).append("".join(self._text))
            self._field = None


def parse(dom):
    fields = PageFields()
    fields.feed(dom)
    return fields


def chromium():
    browser = shutil.which("chromium")
    if browser is None:
        pytest.fail("chromium not found: run deploy/install-deps.sh (Debian's chromium)")
    return browser


def browse(url, profile, *extra):
    """Headless Chromium loads ``url``, lets the page's script fetch and swap
    in the studies (the virtual time budget), and returns its stdout."""
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
               f"--user-data-dir={profile}", "--virtual-time-budget=5000", *extra, url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def start_page(build_dir, server, directory, *flags):
    port_file, log = directory / "page.port", directory / "page.log"
    port_file.unlink(missing_ok=True)
    with open(log, "w") as stream:
        process = subprocess.Popen(
            [str(build_dir / "tools" / "ldp"), "page", f"--server={server.address}",
             f"--token_file={server.token_file}", "--page_port=0",
             f"--page_port_file={port_file}", "--refresh_seconds=0.5", *flags],
            stdout=stream, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (port_file.is_file() and port_file.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"ldp page did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    return process, int(port_file.read_text()), log


def stop_page(process, log):
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0, log.read_text(errors="replace")
    assert "stopped" in log.read_text()


@pytest.fixture(scope="module")
def page(build_dir, server, tmp_path_factory):
    """``ldp page`` on loopback, plaintext, polling twice a second."""
    process, port, log = start_page(build_dir, server, tmp_path_factory.mktemp("page"))
    yield f"http://127.0.0.1:{port}/"
    stop_page(process, log)


def get(url, token=None, context=None):
    """(status, body) of a GET, with ``Authorization: Bearer token`` if given."""
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def token_of(server):
    return server.token_file.read_text().strip()


def test_the_data_answers_only_the_analyst_token(page, server, client, histogram_run):
    newest = int(client.list_studies().study_id.max())  # shown: among the 20 newest
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:  # the page's first poll may still be running
        status, body = get(page + "api/fragment", token_of(server))
        assert status == 200
        if f'data-study-id="{newest}"' in body:
            break
        assert time.monotonic() < deadline, f"study {newest} never shown:\n{body[:2000]}"
        time.sleep(0.2)
    for token in (None, "", "wrong", token_of(server)[:-1]):
        status, body = get(page + "api/fragment", token)
        assert status == 401, token
        assert "data-study-id" not in body
    status, body = get(page)  # the page itself: markup and script, no study
    assert status == 200 and "data-study-id" not in body


def test_a_browser_sees_the_study_fill_during_a_load_test(
        page, server, client, build_dir, tmp_path):
    before = set(client.list_studies().study_id)
    loadtest = subprocess.Popen(
        [str(build_dir / "tools" / "ldp-loadtest"), f"--server={server.address}",
         f"--analyst_token_file={server.token_file}", "--mode=sessions",
         f"--agents={LOADTEST_AGENTS}", f"--rate={LOADTEST_RATE}", "--threads=2",
         "--progress=none", f"--out={tmp_path / 'loadtest'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        study_id = wait_for_reports(client, before, loadtest)
        url = f"{page}#token={token_of(server)}"
        during = parse(browse(url, tmp_path / "profile", "--dump-dom"))
        assert loadtest.poll() is None, (
            "the load test ended before the browser had loaded the page; "
            "raise LOADTEST_AGENTS")
        check_study(during, client, study_id)
        reports_during = int(during.fields[study_id]["reports"][0])
        assert 0 < reports_during < LOADTEST_AGENTS
        assert during.fields[study_id]["round-state"] == ["ROUND_OPEN"]
        _, stderr = loadtest.communicate(timeout=600)
        assert loadtest.returncode == 0, stderr[-2000:]
        time.sleep(1.5)  # three of the page's polls
        after = parse(browse(url, tmp_path / "profile", "--dump-dom"))
        check_study(after, client, study_id)
        assert int(after.fields[study_id]["reports"][0]) == LOADTEST_AGENTS
        assert after.fields[study_id]["estimate"], "the mean's estimate is shown"
        assert after.charts[study_id] >= 2, "progress and the histogram are drawn"
        # The histogram's items are categories: one bar and one error bar
        # each.
        items = sum(len(e.histogram.frequencies)
                    for e in client.estimates(study_id).response.estimates
                    if e.HasField("histogram"))
        assert items > 0
        assert after.marks[study_id]["bar"] == items
        assert after.marks[study_id]["interval"] == items
        shot = tmp_path / "page.png"
        browse(url, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,1600")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        if loadtest.poll() is None:
            loadtest.kill()
            loadtest.wait()


def wait_for_reports(client, before, loadtest):
    """The load test's study, once the server holds some of its reports."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert loadtest.poll() is None, loadtest.stderr.read()[-2000:]
        studies = client.list_studies()
        new = studies[~studies.study_id.isin(before)]
        if len(new) == 1 and new.iloc[0].num_reports > 0:
            return int(new.iloc[0].study_id)
        time.sleep(0.2)
    pytest.fail("the load test's study received no report in time")


def check_study(fields, client, study_id):
    """The browser's DOM shows the study as the server describes it."""
    assert fields.body_state == "live"
    assert study_id in fields.fields, f"study {study_id} is not on the page"
    shown = fields.fields[study_id]
    study = client.study(study_id)
    assert shown["name"] == [study.spec.display_name]
    assert shown["state"] == ["STUDY_ACTIVE"]
    assert shown["quorum"] == [str(study.spec.quorum) if study.spec.quorum else
                               "none (deadline only)"]
    assert float(shown["epsilon-cap"][0]) == pytest.approx(study.spec.epsilon_cap_nanos * 1e-9)
    assert 0 < float(shown["epsilon-spent"][0]) <= float(shown["epsilon-cap"][0])
    assert int(shown["reports"][0]) <= client.status(study_id).num_reports
    assert fields.charts[study_id] >= 1


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("page-certs")
    subprocess.run(["bash", str(CHECKOUT / "deploy" / "make_test_certs.sh"), str(directory)],
                   check=True, capture_output=True)
    return directory


def test_https_with_a_certificate(build_dir, server, certs, tmp_path):
    process, port, log = start_page(
        build_dir, server, tmp_path, f"--page_cert_file={certs / 'server.pem'}",
        f"--page_key_file={certs / 'server.key'}")
    try:
        context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        url = f"https://127.0.0.1:{port}/api/fragment"
        assert get(url, token_of(server), context)[0] == 200
        assert get(url, None, context)[0] == 401
        with pytest.raises(OSError):  # a TLS server does not answer plaintext
            get(f"http://127.0.0.1:{port}/api/fragment", token_of(server))
    finally:
        stop_page(process, log)


@pytest.mark.parametrize("flags, message", [
    (["--page_host=0.0.0.0"], "refusing to serve the page in plaintext on 0.0.0.0"),
    (["--tls_ca_file=ca.pem"], "the page must be HTTPS too"),
    (["--page_cert_file=server.pem"], "give both --page_cert_file and --page_key_file"),
])
def test_unsafe_settings_are_refused(build_dir, server, flags, message):
    done = subprocess.run(
        [str(build_dir / "tools" / "ldp"), "page", f"--server={server.address}",
         f"--token_file={server.token_file}", *flags],
        capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.returncode != 0
    assert message in done.stderr
