"""The generated protobuf and gRPC modules, found wherever the build put them.

Nothing generated is committed: CMake's ``ldp_python_stubs`` target (part of
the default build) writes them to ``<build>/python/proto/ldp/v1/``. The
protos import one another as ``proto/ldp/v1/...``, so the modules are the
package ``proto.ldp.v1`` and their directory must be on ``sys.path``. When it
is not, this module adds the first of these that holds them, so that
``PYTHONPATH=python`` alone works from a built checkout:

1. ``$LDP_STUBS_DIR``;
2. ``<checkout>/$LDP_BUILD_DIR/python`` (``LDP_BUILD_DIR`` defaults to ``build``).
"""

import importlib
import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def candidate_dirs():
    """Directories that may hold ``proto/ldp/v1/*_pb2.py``, in search order."""
    dirs = []
    if os.environ.get("LDP_STUBS_DIR"):
        dirs.append(Path(os.environ["LDP_STUBS_DIR"]))
    build = Path(os.environ.get("LDP_BUILD_DIR", "build"))
    dirs.append((build if build.is_absolute() else CHECKOUT / build) / "python")
    return dirs


def _import_stubs():
    try:
        return (importlib.import_module("proto.ldp.v1.analyst_service_pb2"),
                importlib.import_module("proto.ldp.v1.analyst_service_pb2_grpc"),
                importlib.import_module("proto.ldp.v1.agent_service_pb2"))
    except ModuleNotFoundError as first:
        if first.name not in ("proto", "proto.ldp", "proto.ldp.v1",
                              "proto.ldp.v1.analyst_service_pb2",
                              "proto.ldp.v1.analyst_service_pb2_grpc",
                              "proto.ldp.v1.agent_service_pb2"):
            raise  # grpc or protobuf itself is missing: say that, not this
    for directory in candidate_dirs():
        if (directory / "proto" / "ldp" / "v1" / "analyst_service_pb2.py").is_file():
            sys.path.append(str(directory))
            importlib.invalidate_caches()
            return (importlib.import_module("proto.ldp.v1.analyst_service_pb2"),
                    importlib.import_module("proto.ldp.v1.analyst_service_pb2_grpc"),
                    importlib.import_module("proto.ldp.v1.agent_service_pb2"))
    searched = ", ".join(str(d) for d in candidate_dirs())
    raise ImportError(
        "ldp_analyst: the generated gRPC stubs (proto/ldp/v1/*_pb2.py) were not "
        f"found on sys.path nor in {searched}. Build them with "
        "`cmake --build build --target ldp_python_stubs` (needs Debian's "
        "protobuf-compiler-grpc), then set LDP_BUILD_DIR to that build "
        "directory or LDP_STUBS_DIR to <build>/python.")


analyst_pb2, analyst_grpc, agent_pb2 = _import_stubs()
