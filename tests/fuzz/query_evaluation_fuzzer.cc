// libFuzzer target: a query expression as an agent receives it in a task.
//
// Bytes are parsed as ldp.v1.Query and converted against a fixed schema
// (QueryFromProto: depth and node limits, type checks). A query that
// converts is evaluated on records a careless or hostile agent could hold.
// Properties (query_expression.h): Evaluate never fails and always returns
// a finite value inside the declared output range; the query round-trips
// through its wire form unchanged.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "proto/convert/query_convert.h"
#include "tests/fuzz/fuzz_fixtures.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ldp::fuzz::Check;
  ldp::v1::Query proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<ldp::Query> query =
      ldp::QueryFromProto(proto, ldp::fuzz::Schema());
  if (!query.ok()) return 0;
  const ldp::QueryRange range = query->output_range();
  for (const ldp::Record& record : ldp::fuzz::Records()) {
    const double value = query->Evaluate(record);
    Check(std::isfinite(value), "query value not finite");
    Check(range.lower <= value && value <= range.upper,
          "query value outside its output range");
  }
  ldp::v1::Query again;
  ldp::ToProto(*query, &again);
  absl::StatusOr<ldp::Query> reread =
      ldp::QueryFromProto(again, ldp::fuzz::Schema());
  Check(reread.ok() && reread->root() == query->root() &&
            reread->output_range() == range,
        "query does not round-trip through its wire form");
  return 0;
}
