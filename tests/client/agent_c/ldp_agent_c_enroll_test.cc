// ldp_agent_enroll_request: an EnrollRequest carrying the token and CSR as
// given and a fresh 32-byte request id per call (the app saves the bytes
// and resends them on every retry); bad arguments are refused.
#include <string>

#include "client/agent_c/ldp_agent.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp::agent_c_enroll_test {
namespace {

using ::testing::HasSubstr;

// The request ldp_agent_enroll_request builds, parsed; `code` gets its
// status code and `message` its message.
v1::EnrollRequest Enroll(const char* token, size_t token_size, const char* csr,
                         size_t csr_size, int& code,
                         std::string* message = nullptr) {
  ldp_buffer out{reinterpret_cast<uint8_t*>(1), 7};  // cleared by the call
  ldp_status status{};
  code =
      ldp_agent_enroll_request(token, token_size, csr, csr_size, &out, &status);
  if (message != nullptr) *message = status.message;
  v1::EnrollRequest request;
  if (code == LDP_OK) {
    EXPECT_TRUE(request.ParseFromArray(out.data, static_cast<int>(out.size)));
  } else {
    EXPECT_EQ(out.data, nullptr);
    EXPECT_EQ(out.size, 0u);
  }
  ldp_buffer_free(&out);
  return request;
}

TEST(AgentCEnrollTest, CarriesTheTokenAndCsrAndAFreshRequestId) {
  const std::string token = "one-time-token";
  const std::string csr =
      "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n"
      "-----END CERTIFICATE REQUEST-----\n";
  int code = -1;
  const v1::EnrollRequest first =
      Enroll(token.data(), token.size(), csr.data(), csr.size(), code);
  ASSERT_EQ(code, LDP_OK);
  const v1::EnrollRequest second =
      Enroll(token.data(), token.size(), csr.data(), csr.size(), code);
  ASSERT_EQ(code, LDP_OK);
  EXPECT_EQ(first.enrollment_token(), token);
  EXPECT_EQ(first.csr_pem(), csr);
  EXPECT_EQ(second.enrollment_token(), token);
  EXPECT_EQ(second.csr_pem(), csr);
  EXPECT_EQ(first.request_id().size(), 32u);
  EXPECT_EQ(second.request_id().size(), 32u);
  EXPECT_NE(first.request_id(), second.request_id());
  EXPECT_NE(first.request_id(), std::string(32, '\0'));
}

TEST(AgentCEnrollTest, ABearerTokenNeedsNoCsr) {
  int code = -1;
  const v1::EnrollRequest request = Enroll("t", 1, nullptr, 0, code);
  ASSERT_EQ(code, LDP_OK);
  EXPECT_EQ(request.enrollment_token(), "t");
  EXPECT_EQ(request.csr_pem(), "");
  EXPECT_EQ(request.request_id().size(), 32u);
}

TEST(AgentCEnrollTest, BadArgumentsAreRefused) {
  int code = -1;
  std::string message;
  Enroll("", 0, nullptr, 0, code, &message);
  EXPECT_EQ(code, LDP_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("token is empty"));
  Enroll(nullptr, 3, nullptr, 0, code, &message);
  EXPECT_EQ(code, LDP_INVALID_ARGUMENT);
  Enroll("t", 1, nullptr, 3, code, &message);
  EXPECT_EQ(code, LDP_INVALID_ARGUMENT);
  Enroll("\xff", 1, nullptr, 0, code, &message);
  EXPECT_EQ(code, LDP_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("enrollment token is not UTF-8"));
  Enroll("t", 1, "\xc0\x80", 2, code, &message);
  EXPECT_EQ(code, LDP_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("CSR is not UTF-8"));
  ldp_status status{};
  EXPECT_EQ(ldp_agent_enroll_request("t", 1, nullptr, 0, nullptr, &status),
            LDP_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ldp::agent_c_enroll_test
