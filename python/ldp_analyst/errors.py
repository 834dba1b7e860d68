"""Errors the package raises, each with what a user can do about it.

The server states why it refused a call (``INVALID_ARGUMENT`` naming the
field, ``FAILED_PRECONDITION`` saying the study is finished, ...); that text
and the gRPC status code travel on :class:`LdpError` unchanged, so a
notebook can branch on ``err.code`` and show ``err.message``.
"""

import grpc


class LdpError(Exception):
    """A call the server (or gRPC on its way there) refused.

    Attributes:
        code: the :class:`grpc.StatusCode`, e.g. ``grpc.StatusCode.INVALID_ARGUMENT``.
        message: the server's own explanation.
        method: the AnalystService method that failed, e.g. ``"CreateStudy"``.
    """

    def __init__(self, method, code, message):
        self.method = method
        self.code = code
        self.message = message
        super().__init__(f"{method}: {code.name}: {message}{_hint(code)}")


def _hint(code):
    """What to try next for the codes whose fix is on the caller's side."""
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return (" (check token_file: it must hold the server's analyst token, "
                "its --analyst_token_file or <db>.analyst_token)")
    if code == grpc.StatusCode.UNAVAILABLE:
        return " (is ldp-server running at that address, with tls= matching it?)"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return " (raise the Client's timeout; planning a workload can take minutes)"
    return ""


def from_rpc_error(method, error):
    """The :class:`LdpError` for a :class:`grpc.RpcError` raised by a stub."""
    return LdpError(method, error.code(), error.details() or "")


class SpecError(ValueError):
    """A study spec that cannot be read as an ``ldp.v1.StudySpec``.

    Raised before anything is sent; the server's own checks (field values,
    the cap, ...) come back as :class:`LdpError` with ``INVALID_ARGUMENT``.
    """


class LoadtestError(RuntimeError):
    """``ldp-loadtest`` could not be found or exited with an error."""
