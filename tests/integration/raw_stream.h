// A client stream that sends raw bytes as its messages, through gRPC's
// generic stub: the generated stubs can only send valid messages, and the
// abuse tests need garbage on the wire (abuse_wire_test, relay_test).
#ifndef LDP_TESTS_INTEGRATION_RAW_STREAM_H_
#define LDP_TESTS_INTEGRATION_RAW_STREAM_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"

namespace ldp::testing {

// The next event's ok bit (false once the queue is drained).
inline bool AwaitEvent(grpc::CompletionQueue& queue) {
  void* tag = nullptr;
  bool ok = false;
  return queue.Next(&tag, &ok) && ok;
}

// Calls `method` ("/ldp.v1.Service/Method") as a stream carrying `messages`
// verbatim (with `authorization` metadata unless empty), half-closes, and
// returns the call's final status. Responses are read and dropped.
inline grpc::Status RawStream(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& method,
                              const std::string& authorization,
                              const std::vector<std::string>& messages) {
  grpc::ClientContext context;
  if (!authorization.empty())
    context.AddMetadata("authorization", authorization);
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue queue;
  auto call = stub.PrepareCall(&context, method, &queue);
  call->StartCall(nullptr);
  AwaitEvent(queue);
  for (const std::string& message : messages) {
    grpc::Slice slice(message);
    call->Write(grpc::ByteBuffer(&slice, 1), nullptr);
    if (!AwaitEvent(queue)) break;  // the server ended the stream
  }
  call->WritesDone(nullptr);
  AwaitEvent(queue);
  grpc::ByteBuffer response;
  do {
    call->Read(&response, nullptr);
  } while (AwaitEvent(queue));
  grpc::Status status;
  call->Finish(&status, nullptr);
  AwaitEvent(queue);
  queue.Shutdown();
  while (AwaitEvent(queue)) {
  }
  return status;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_RAW_STREAM_H_
