#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/grpc_convert/grpc_status.h"

namespace ldp {
namespace {

TEST(GrpcStatusConvert, EveryCanonicalCodeAndMessageSurvivesBothWays) {
  for (int code = 1; code <= 16; ++code) {
    const std::string message = absl::StrCat("detail ", code);
    const absl::Status status(static_cast<absl::StatusCode>(code), message);
    const grpc::Status grpc = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(grpc.error_code()), code);
    EXPECT_EQ(grpc.error_message(), message);
    EXPECT_EQ(FromGrpcStatus(grpc), status);
  }
}

TEST(GrpcStatusConvert, NamedCodesLineUp) {
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError("x")).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(absl::FailedPreconditionError("x")).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ToGrpcStatus(absl::UnauthenticatedError("x")).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(FromGrpcStatus(grpc::Status(grpc::StatusCode::ALREADY_EXISTS, "x"))
                .code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(GrpcStatusConvert, OkIsOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(GrpcStatusConvert, NonCanonicalCodesBecomeUnknown) {
  const absl::Status odd(static_cast<absl::StatusCode>(20), "odd");
  const grpc::Status grpc = ToGrpcStatus(odd);
  EXPECT_EQ(grpc.error_code(), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(grpc.error_message(), "odd");
  // 20 is outside the canonical codes yet inside the enum's value range
  // (-32..31); a cast to anything beyond it is itself undefined (UBSan).
  const grpc::Status weird(static_cast<grpc::StatusCode>(20), "weird");
  EXPECT_EQ(FromGrpcStatus(weird), absl::UnknownError("weird"));
}

}  // namespace
}  // namespace ldp
