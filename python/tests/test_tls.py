"""tls=: the analyst's calls and the load test over TLS, trusting a CA file."""

import subprocess

import grpc
import pytest

from ldp_analyst import Client, LdpError, run_loadtest
from ldp_analyst.stubs import CHECKOUT

from server_process import running_server, wait_until_serving


@pytest.fixture(scope="module")
def tls_server(build_dir, tmp_path_factory):
    """A second ldp-server, with a certificate for localhost and 127.0.0.1
    from deploy/make_test_certs.sh's throwaway CA. Reached at 127.0.0.1: a
    host name makes the ASan ldp-loadtest report a leak inside Debian's
    c-ares resolver."""
    certs = tmp_path_factory.mktemp("certs")
    subprocess.run(["bash", str(CHECKOUT / "deploy" / "make_test_certs.sh"), str(certs)],
                   check=True, capture_output=True)
    with running_server(build_dir, tmp_path_factory.mktemp("ldp-server-tls"), "--relay_service",
                        f"--tls_cert_file={certs / 'server.pem'}",
                        f"--tls_key_file={certs / 'server.key'}") as s:
        wait_until_serving(s.address, s.token_file, tls=certs / "ca.pem")
        yield s, certs / "ca.pem"


def test_calls_and_load_test_over_tls(tls_server):
    server, ca = tls_server
    with Client(server.address, server.token_file, tls=ca) as client:
        run = run_loadtest(client, agents=50, mode="bulk")  # passes --tls_ca_file on
        assert client.status(run.study_id).num_reports == 50


def test_plaintext_client_cannot_reach_a_tls_server(tls_server):
    server, _ = tls_server
    with Client(server.address, server.token_file, timeout=5) as client, \
            pytest.raises(LdpError) as raised:
        client.list_studies()
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE


def test_missing_ca_file_is_named(tls_server, tmp_path):
    server, _ = tls_server
    with pytest.raises(FileNotFoundError, match="nothing.pem"):
        Client(server.address, server.token_file, tls=tmp_path / "nothing.pem")
