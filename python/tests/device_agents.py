"""Agents on simulated devices through the C library (ldp_device), each
enrolling, polling and uploading over a real ldp-server with grpcio.

Run as its own process by test_device_agent.py: an ASan build's library
needs the sanitizer runtime preloaded, which the server processes the
tests start must not inherit.

usage: device_agents.py ADDRESS STATE_DIR AGENTS CYCLES [RECORDS]
RECORDS: a JSON file {"records": [...], "caps": {...}}: agent i holds
record i mod their number, and the caps are DeviceAgent's keyword
arguments (default: {"smoker": true} for even i, false for odd, and the
library's default caps).
Prints one JSON object per agent: its id, what each cycle answered,
refused, uploaded and had accepted, and what it spent.
"""

import importlib
import json
import sys
from pathlib import Path

import grpc

from ldp_analyst.stubs import agent_pb2
from ldp_device import DeviceAgent

agent_grpc = importlib.import_module("proto.ldp.v1.agent_service_pb2_grpc")


def run_device(stub, state_dir, index, cycles, record, caps):
    enrolled = stub.Enroll(agent_pb2.EnrollRequest())
    metadata = [("authorization", "Bearer " + enrolled.credential.bearer_token)]
    agent_id = enrolled.agent_id
    result = {"agent_id": agent_id, "cycles": []}
    with DeviceAgent(record, Path(state_dir) / f"agent{index}",
                     simulation_seed=index + 1, **caps) as agent:
        result["version"] = list(agent.version)
        for _ in range(cycles):
            poll = stub.GetTasks(agent_pb2.GetTasksRequest(agent_id=agent_id),
                                 metadata=metadata)
            answered, refused = agent.answer_poll(poll.SerializeToString())
            cycle = {"answered": answered, "refused": refused, "uploaded": 0,
                     "accepted": 0}
            request = agent.next_upload(agent_id)
            if request:
                message = agent_pb2.UploadReportsRequest.FromString(request)
                response = stub.UploadReports(iter([message]), metadata=metadata)
                cycle["uploaded"] = len(message.reports)
                cycle["accepted"], _ = agent.record_upload(
                    request, response.SerializeToString())
            result["cycles"].append(cycle)
        result["spent"] = agent.spent()[0]
        result["pending_after"] = len(agent.next_upload(agent_id))
    return result


def main(address, state_dir, agents, cycles, records=None):
    given = json.loads(Path(records).read_text()) if records else {}
    caps = given.get("caps", {})
    records = given.get("records", [{"smoker": True}, {"smoker": False}])
    with grpc.insecure_channel(address) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        for index in range(int(agents)):
            record = records[index % len(records)]
            print(json.dumps(run_device(stub, state_dir, index, int(cycles), record,
                                        caps)), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
