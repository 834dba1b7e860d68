// The standard grpc.health.v1 service answers SERVING on a running
// ldp-server. Debian ships no health proto header, so the call is generic:
// an empty HealthCheckRequest (service "") and the response bytes
// {field 1 (status) = 1 (SERVING)} = 0x08 0x01.
#include <string>

#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

TEST(Health, ServerReportsServing) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  grpc::GenericStub stub(server.NewChannel());
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice empty("", 0);  // an empty HealthCheckRequest
  grpc::ByteBuffer request(&empty, 1);
  auto call = stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check",
                                    request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  ASSERT_TRUE(queue.Next(&tag, &ok));
  ASSERT_TRUE(ok);
  ASSERT_TRUE(status.ok()) << status.error_message();
  grpc::Slice slice;
  ASSERT_TRUE(response.DumpToSingleSlice(&slice).ok());
  const std::string bytes(reinterpret_cast<const char*>(slice.begin()), slice.size());
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
}

}  // namespace
}  // namespace ldp::testing
