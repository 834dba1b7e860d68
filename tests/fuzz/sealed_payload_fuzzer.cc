// libFuzzer target: what a shuffled report's agent controls once the
// server has opened it, and what a shuffler reads from any caller.
//
// An agent seals whatever plaintext it likes, so the server's unpadding
// and parsing see attacker bytes after a successful open; a shuffler parses
// every submission's ticket before it checks the signature. Properties:
// nothing crashes; UnpadReport refuses with INVALID_ARGUMENT and a reason,
// or accepts exactly the bytes PadReport writes for what it returns (so no
// two paddings of one report exist, and none leaks a value-dependent
// length); a report that unpads is checked by ReportFromProto like any
// other; VerifyTicket of arbitrary bytes under a fixed key is refused
// (UNAUTHENTICATED or INVALID_ARGUMENT), never accepted.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/convert/report_convert.h"
#include "proto/sealing/sealed_report.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

bool RefusedWithReason(const absl::Status& status, absl::StatusCode code) {
  return status.code() == code && !status.message().empty();
}

void FuzzPlaintext(std::string_view bytes) {
  absl::StatusOr<v1::Report> report = UnpadReport(bytes);
  if (!report.ok()) {
    Check(
        RefusedWithReason(report.status(), absl::StatusCode::kInvalidArgument),
        "a refused plaintext is not INVALID_ARGUMENT with a reason");
    return;
  }
  Check(PadReport(*report) == bytes,
        "an accepted plaintext is not the one padding of its report");
  absl::StatusOr<TaskReport> parsed = ReportFromProto(*report);
  Check(parsed.ok() || RefusedWithReason(parsed.status(),
                                         absl::StatusCode::kInvalidArgument),
        "a report refused without a reason");
}

void FuzzTicket(std::string_view bytes) {
  static const std::string key(32, '\x42');
  v1::SignedShuffleTicket signed_ticket;
  // As a whole message, and as the ticket bytes of a signature of zeros.
  if (signed_ticket.ParseFromString(std::string(bytes))) {
    absl::StatusOr<v1::ShuffleTicket> t = VerifyTicket(signed_ticket, key);
    Check(!t.ok(), "a ticket not signed by the key was accepted");
  }
  signed_ticket.set_ticket(std::string(bytes));
  signed_ticket.set_signature(std::string(64, '\0'));
  absl::StatusOr<v1::ShuffleTicket> t = VerifyTicket(signed_ticket, key);
  Check(!t.ok() && (t.status().code() == absl::StatusCode::kUnauthenticated ||
                    t.status().code() == absl::StatusCode::kInvalidArgument),
        "a forged ticket is not UNAUTHENTICATED or INVALID_ARGUMENT");
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ldp::fuzz::FuzzPlaintext(bytes);
  ldp::fuzz::FuzzTicket(bytes);
  return 0;
}
