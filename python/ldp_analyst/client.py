"""``Client``: the analyst's calls to ``ldp.v1.AnalystService``.

Every call sends the analyst token as ``authorization: Bearer <token>``, as
the C++ tools do (tools/analyst_client/analyst_client.cc), with a deadline; a refused call
raises :class:`~ldp_analyst.errors.LdpError` carrying the gRPC status code
and the server's message. Calls whose answer is a tree (a study, a round)
return the protobuf message; calls whose answer is a table (studies, a
budget ledger, estimates) return pandas DataFrames.
"""

import ipaddress
import os
from pathlib import Path

import grpc
import pandas as pd

from .errors import from_rpc_error
from .results import NANOS_PER_EPSILON, estimates_from_response, _enum_name
from .specs import study_spec
from .stubs import agent_pb2, analyst_grpc, analyst_pb2

# The defaults of the ldp command line (tools/cli/ldp_cli_main.cc).
DEFAULT_SERVER = "127.0.0.1:50051"
DEFAULT_TOKEN_FILE = "ldp.db.analyst_token"

# Workload estimates of large custom workloads exceed gRPC's 4 MB default.
MAX_RECEIVE_BYTES = 256 * 1024 * 1024

STUDY_COLUMNS = ["study_id", "display_name", "mode", "state", "num_rounds", "num_agents",
                 "num_reports", "max_spent_epsilon", "epsilon_cap", "create_time"]
BUDGET_COLUMNS = ["study_id", "cap_epsilon", "spent_epsilon", "cap_nanos", "spent_nanos"]


def read_token(token_file):
    """The analyst token in ``token_file``, stripped as ldp-server reads it."""
    path = Path(token_file)
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"analyst token file {path} not found: ldp-server reads it from "
            "--analyst_token_file, or writes <db>.analyst_token next to its "
            "database") from None
    if not token:
        raise ValueError(f"analyst token file {path} is empty")
    return token


def channel_credentials(tls):
    """gRPC channel credentials for ``tls``, or None for plaintext.

    ``None``/``False``: plaintext (ldp-server without TLS listens on loopback
    only). ``True``: TLS trusting the system's roots. A path: TLS trusting
    the CA certificate(s) in that PEM file (ldp-loadtest's --tls_ca_file).
    A :class:`grpc.ChannelCredentials`: used as is.
    """
    if tls is None or tls is False:
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    if isinstance(tls, grpc.ChannelCredentials):
        return tls
    path = Path(tls)
    if not path.is_file():
        raise FileNotFoundError(f"tls: CA certificate file {path} not found")
    return grpc.ssl_channel_credentials(root_certificates=path.read_bytes())


def is_loopback(server):
    """Whether ``host:port`` names this machine (127.0.0.0/8, ::1, localhost)."""
    host = server.rsplit(":", 1)[0] if server.count(":") == 1 else server
    if host.startswith("[") and "]" in host:
        host = host[1:host.index("]")]
    elif server.startswith("ipv4:") or server.startswith("ipv6:"):
        return is_loopback(server.split(":", 1)[1])
    if host == "localhost" or host == "::1":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _study_row(study):
    status = study.status
    return dict(study_id=study.study_id, display_name=study.spec.display_name,
                mode=_enum_name(analyst_pb2.StudyMode, study.spec.mode),
                state=_enum_name(analyst_pb2.StudyState, status.state),
                num_rounds=len(status.round_ids), num_agents=status.num_agents,
                num_reports=status.num_reports,
                max_spent_epsilon=status.max_spent_nanos / NANOS_PER_EPSILON,
                epsilon_cap=study.spec.epsilon_cap_nanos / NANOS_PER_EPSILON,
                create_time=pd.Timestamp(study.create_time.ToDatetime(), tz="UTC"))


class Client:
    """An analyst's connection to one ldp-server.

    Args:
        server: ``host:port`` of ldp-server; None = ``$LDP_SERVER``, else
            ``127.0.0.1:50051`` (the ``ldp`` command line's default).
        token_file: file holding the analyst token (ldp-server's
            ``--analyst_token_file``, or the ``<db>.analyst_token`` it writes;
            by default ``ldp.db.analyst_token`` in the working directory).
        tls: ``None`` for plaintext, which is refused unless ``server`` is on
            loopback (the token would travel in the clear); ``True`` for TLS
            with the system's roots, a CA certificate file, or grpc channel
            credentials.
        timeout: deadline of each call, in seconds.
        create_timeout: deadline of :meth:`create_study`, which plans the
            study (an optimized workload strategy can take minutes the first
            time).
    """

    def __init__(self, server=None, token_file=DEFAULT_TOKEN_FILE, tls=None, timeout=60.0,
                 create_timeout=900.0):
        if server is None:
            server = os.environ.get("LDP_SERVER") or DEFAULT_SERVER
        self.server = server
        self.token_file = str(token_file)
        self.tls = tls
        self.timeout = timeout
        self.create_timeout = create_timeout
        self._metadata = (("authorization", "Bearer " + read_token(token_file)),)
        options = [("grpc.max_receive_message_length", MAX_RECEIVE_BYTES)]
        credentials = channel_credentials(tls)
        if credentials is None and not is_loopback(server):
            # The analyst token is a bearer credential: anyone who reads it
            # can create studies and read every estimate.
            raise ValueError(
                f"refusing to send the analyst token in plaintext to {server}: "
                "pass tls=True (system roots) or tls='ca.pem', or reach the "
                "server on loopback")
        self._channel = (grpc.insecure_channel(server, options=options) if credentials is None
                         else grpc.secure_channel(server, credentials, options=options))
        self._stub = analyst_grpc.AnalystServiceStub(self._channel)

    def close(self):
        """Closes the channel; the client cannot be used afterwards."""
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _call(self, method, request, timeout=None):
        try:
            return getattr(self._stub, method)(request, metadata=self._metadata,
                                               timeout=timeout or self.timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(method, e) from None

    def create_study(self, spec, request_id=""):
        """Creates a study and starts its first round; returns the ``Study``.

        ``spec``: a StudySpec, dict, JSON or textproto file, or text (see
        :func:`ldp_analyst.specs.study_spec`). ``request_id``: an idempotency
        key; a retry with the same key returns the study created first.
        """
        request = analyst_pb2.CreateStudyRequest(spec=study_spec(spec), request_id=request_id)
        return self._call("CreateStudy", request, timeout=self.create_timeout)

    def study(self, study_id):
        """The ``Study`` with its spec and current status."""
        return self._call("GetStudy", analyst_pb2.GetStudyRequest(study_id=study_id))

    def status(self, study_id):
        """The study's ``StudyStatus``: state, rounds, agents, reports, ε spent,
        and an interactive study's program result."""
        return self.study(study_id).status

    def list_studies(self, page_size=0):
        """Every study, newest first, one row each (all pages are read)."""
        rows, token = [], ""
        while True:
            page = self._call("ListStudies", analyst_pb2.ListStudiesRequest(
                page_size=page_size, page_token=token))
            rows.extend(_study_row(s) for s in page.studies)
            token = page.next_page_token
            if not token:
                return pd.DataFrame(rows, columns=STUDY_COLUMNS)

    def start_round(self, study_id):
        """Advances an INTERACTIVE study: closes its open round now and
        returns the ``Round`` its analyst program asks next (or the closed
        last round when the program is done)."""
        return self._call("StartRound", analyst_pb2.StartRoundRequest(study_id=study_id))

    def round(self, study_id, round_id=0):
        """One ``Round`` with its progress; ``round_id`` 0 = the latest."""
        return self._call("GetRound", analyst_pb2.GetRoundRequest(
            study_id=study_id, round_id=round_id))

    def estimates(self, study_id, round_id=0):
        """A round's :class:`~ldp_analyst.results.Estimates` (interim while
        the round is open); ``round_id`` 0 = the latest round."""
        response = self._call("GetEstimates", analyst_pb2.GetEstimatesRequest(
            study_id=study_id, round_id=round_id))
        return estimates_from_response(study_id, response)

    def budget(self, agent_id, study_id=0):
        """The server's ledger for one agent: one row per study it takes part
        in (or only ``study_id``), with the cap and the ε charged so far."""
        response = self._call("GetAgentBudget", agent_pb2.GetBudgetRequest(
            agent_id=agent_id, study_id=study_id))
        rows = [dict(study_id=e.study_id, cap_epsilon=e.cap_nanos / NANOS_PER_EPSILON,
                     spent_epsilon=e.spent_nanos / NANOS_PER_EPSILON, cap_nanos=e.cap_nanos,
                     spent_nanos=e.spent_nanos) for e in response.entries]
        return pd.DataFrame(rows, columns=BUDGET_COLUMNS)
