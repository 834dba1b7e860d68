"""The agent's C library (client/agent_c/ldp_agent.h) from Python, through ctypes.

An app that runs agents on devices embeds the C library; this package is
the same library seen from Python, and the proof that its ABI is usable
from another language. It moves no bytes itself: the caller carries the
protocol (ldp.v1 messages, e.g. with grpcio) and hands the bytes over.

    agent = DeviceAgent({"smoker": True}, "state.blob")
    answered, refused = agent.answer_poll(get_tasks_response_bytes)
    request = agent.next_upload(agent_id)      # b"" when nothing is pending
    accepted, rejected = agent.record_upload(request, upload_response_bytes)

The library is ``$LDP_AGENT_LIBRARY``, or ``client/libldp_agent.so`` under
``$LDP_BUILD_DIR`` (default ``build``).
"""

from ldp_device.agent import AgentError, DeviceAgent, library_path

__all__ = ["AgentError", "DeviceAgent", "library_path"]
