"""ctypes declarations of ldp_agent.h and the DeviceAgent wrapper."""

import ctypes
import json
import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[2]

_LOAD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                         ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
                         ctypes.POINTER(ctypes.c_size_t))
_WRITE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                          ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)
_SYNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


class _Status(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("size", ctypes.c_size_t)]


class _Storage(ctypes.Structure):
    _fields_ = [("context", ctypes.c_void_p), ("load", _LOAD), ("write", _WRITE),
                ("sync", _SYNC)]


class _Options(ctypes.Structure):
    _fields_ = [("record_json", ctypes.c_char_p),
                ("max_epsilon_per_study_nanos", ctypes.c_int64),
                ("lifetime_cap_nanos", ctypes.c_int64),
                ("period_cap_nanos", ctypes.c_int64),
                ("period_seconds", ctypes.c_int64),
                ("insecure_simulation", ctypes.c_int),
                ("simulation_seed", ctypes.c_uint64)]


class AgentError(Exception):
    """A call the library refused: ``code`` is the ldp_status_code
    (google.rpc.Code numbering), ``message`` says why."""

    def __init__(self, call, code, message):
        super().__init__(f"{call}: code {code}: {message}")
        self.code = code
        self.message = message


def library_path():
    """Where the C library is looked for (see the package docstring)."""
    if os.environ.get("LDP_AGENT_LIBRARY"):
        return Path(os.environ["LDP_AGENT_LIBRARY"])
    build = Path(os.environ.get("LDP_BUILD_DIR", "build"))
    build = build if build.is_absolute() else _CHECKOUT / build
    return build / "client" / "libldp_agent.so"


def _declare(lib):
    p, u8p, sz = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t
    ip, st, buf = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(_Status), ctypes.POINTER(_Buffer)
    i64p = ctypes.POINTER(ctypes.c_int64)
    signatures = {
        "ldp_agent_version": (ctypes.c_char_p, []),
        "ldp_agent_abi_version": (ctypes.c_int, []),
        "ldp_agent_open": (ctypes.c_int, [ctypes.POINTER(_Options), ctypes.POINTER(_Storage),
                                          ctypes.POINTER(p), st]),
        "ldp_agent_close": (None, [p]),
        "ldp_agent_answer_poll": (ctypes.c_int, [p, u8p, sz, ip, ip, st]),
        "ldp_agent_next_upload": (ctypes.c_int, [p, ctypes.c_uint64, buf, st]),
        "ldp_agent_record_upload": (ctypes.c_int, [p, u8p, sz, u8p, sz, ip, ip, st]),
        "ldp_agent_spent": (ctypes.c_int, [p, ctypes.c_uint64, i64p, i64p, st]),
        "ldp_buffer_free": (None, [buf]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


def _bytes_arg(data):
    array = (ctypes.c_uint8 * len(data)).from_buffer_copy(data) if data else None
    return array, len(data)


class _FileStorage:
    """The state blob in a file, replaced atomically: written to a temporary
    file, synced, renamed over the old one."""

    def __init__(self, path):
        self.path = Path(path)
        self._loaded = None  # keeps the last loaded bytes alive for the library
        self._pending = None
        self.callbacks = _Storage(None, _LOAD(self._load), _WRITE(self._write),
                                  _SYNC(self._sync))

    def _load(self, _context, data, size):
        try:
            blob = self.path.read_bytes() if self.path.exists() else b""
        except OSError:
            return 1
        self._loaded = (ctypes.c_uint8 * max(len(blob), 1)).from_buffer_copy(blob or b"\0")
        data[0] = ctypes.cast(self._loaded, ctypes.POINTER(ctypes.c_uint8))
        size[0] = len(blob)
        return 0

    def _write(self, _context, data, size):
        self._pending = ctypes.string_at(data, size)
        return 0

    def _sync(self, _context):
        temp = self.path.with_name(self.path.name + ".tmp")
        try:
            with open(temp, "wb") as f:
                f.write(self._pending)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, self.path)
        except OSError:
            return 1
        return 0


class DeviceAgent:
    """One device's agent: its record, its state file, its budget."""

    def __init__(self, record, state_path, *, simulation_seed=None, library=None,
                 max_epsilon_per_study_nanos=0, lifetime_cap_nanos=0, period_cap_nanos=0):
        """The caps are the library's (0: its safe defaults, 1 ε per study,
        10 ε for life, 2 ε per day); only the device's owner sets them."""
        self._lib = _declare(ctypes.CDLL(str(library or library_path())))
        self._storage = _FileStorage(state_path)
        self._record = json.dumps(record).encode()
        options = _Options(record_json=self._record,
                           max_epsilon_per_study_nanos=max_epsilon_per_study_nanos,
                           lifetime_cap_nanos=lifetime_cap_nanos,
                           period_cap_nanos=period_cap_nanos)
        if simulation_seed is not None:  # repeatable coins: tests only
            options.insecure_simulation, options.simulation_seed = 1, simulation_seed
        self._handle = ctypes.c_void_p()
        self._check("ldp_agent_open", lambda st: self._lib.ldp_agent_open(
            ctypes.byref(options), ctypes.byref(self._storage.callbacks),
            ctypes.byref(self._handle), st))

    @property
    def version(self):
        return self._lib.ldp_agent_version().decode(), self._lib.ldp_agent_abi_version()

    def _check(self, call, invoke):
        status = _Status()
        code = invoke(ctypes.byref(status))
        if code != 0:
            raise AgentError(call, code, status.message.decode(errors="replace"))

    def answer_poll(self, get_tasks_response):
        """Answers a serialized GetTasksResponse: (answered, refused)."""
        array, size = _bytes_arg(get_tasks_response)
        answered, refused = ctypes.c_int(), ctypes.c_int()
        self._check("ldp_agent_answer_poll", lambda st: self._lib.ldp_agent_answer_poll(
            self._handle, array, size, ctypes.byref(answered), ctypes.byref(refused), st))
        return answered.value, refused.value

    def next_upload(self, agent_id):
        """The next serialized UploadReportsRequest, b"" if nothing is pending."""
        out = _Buffer()
        self._check("ldp_agent_next_upload", lambda st: self._lib.ldp_agent_next_upload(
            self._handle, agent_id, ctypes.byref(out), st))
        try:
            return ctypes.string_at(out.data, out.size) if out.size else b""
        finally:
            self._lib.ldp_buffer_free(ctypes.byref(out))

    def record_upload(self, request, response):
        """Settles a sent request from the server's response: (accepted, rejected)."""
        req, req_size = _bytes_arg(request)
        resp, resp_size = _bytes_arg(response)
        accepted, rejected = ctypes.c_int(), ctypes.c_int()
        self._check("ldp_agent_record_upload", lambda st: self._lib.ldp_agent_record_upload(
            self._handle, req, req_size, resp, resp_size, ctypes.byref(accepted),
            ctypes.byref(rejected), st))
        return accepted.value, rejected.value

    def spent(self, study_id=0):
        """Nano-ε spent: (in total, on `study_id`)."""
        total, study = ctypes.c_int64(), ctypes.c_int64()
        self._check("ldp_agent_spent", lambda st: self._lib.ldp_agent_spent(
            self._handle, study_id, ctypes.byref(total), ctypes.byref(study), st))
        return total.value, study.value

    def close(self):
        if self._handle:
            self._lib.ldp_agent_close(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
