// Reports between ldp.v1 and task.h; see the header.
#include "proto/convert/report_convert.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/bit_vector_convert.h"
#include "proto/convert/deterministic_bytes.h"

namespace ldp {
namespace {

absl::StatusOr<SubsetReport> SubsetFromProto(const v1::SubsetPayload& proto) {
  if (proto.items_size() > kMaxSubsetItems) {
    return absl::InvalidArgumentError(
        absl::StrCat("subset has ", proto.items_size(), " items; at most ",
                     kMaxSubsetItems, " are allowed"));
  }
  for (int i = 1; i < proto.items_size(); ++i) {
    if (proto.items(i - 1) >= proto.items(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "subset items must be strictly ascending; items[", i - 1,
          "] = ", proto.items(i - 1), ", items[", i, "] = ", proto.items(i)));
    }
  }
  return SubsetReport{.items = {proto.items().begin(), proto.items().end()}};
}

// A report's bit vector, with its wire length kept as num_bits so the
// mechanism can require exactly its own. A length of 0 is refused here: no
// mechanism reports 0 bits, and 0 is reserved for legacy stored reports.
absl::StatusOr<BitVectorReport> BitVectorFromProto(const v1::BitVector& proto,
                                                   const char* what) {
  if (proto.bit_length() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     ": bit_length is 0; a report's bit vector has exactly its "
                     "task's number of bits"));
  }
  ASSIGN_OR_RETURN(std::vector<uint64_t> words, WordsFromProto(proto, what));
  return BitVectorReport{.words = std::move(words),
                         .num_bits = proto.bit_length()};
}

absl::StatusOr<SketchReport> SketchFromProto(const v1::SketchPayload& proto) {
  ASSIGN_OR_RETURN(BitVectorReport bits,
                   BitVectorFromProto(proto.bits(), "sketch.bits"));
  return SketchReport{.row = proto.row(),
                      .column = proto.column(),
                      .bits = std::move(bits.words),
                      .num_bits = bits.num_bits};
}

absl::StatusOr<FrequencyReport> FrequencyFromProto(const v1::Report& proto) {
  switch (proto.payload_case()) {
    case v1::Report::kItem:
      return FrequencyReport(ItemReport{.item = proto.item().item()});
    case v1::Report::kBitVector: {
      ASSIGN_OR_RETURN(BitVectorReport bits,
                       BitVectorFromProto(proto.bit_vector(), "bit_vector"));
      return FrequencyReport(std::move(bits));
    }
    case v1::Report::kHashed:
      return FrequencyReport(HashedReport{.seed = proto.hashed().seed(),
                                          .bucket = proto.hashed().bucket()});
    case v1::Report::kSubset: {
      ASSIGN_OR_RETURN(SubsetReport subset, SubsetFromProto(proto.subset()));
      return FrequencyReport(std::move(subset));
    }
    case v1::Report::kSketch: {
      ASSIGN_OR_RETURN(SketchReport sketch, SketchFromProto(proto.sketch()));
      return FrequencyReport(std::move(sketch));
    }
    default:
      return absl::InvalidArgumentError("report has no payload set");
  }
}

void FrequencyToProto(const FrequencyReport& report, v1::Report* proto) {
  if (const auto* item = std::get_if<ItemReport>(&report)) {
    proto->mutable_item()->set_item(item->item);
  } else if (const auto* bits = std::get_if<BitVectorReport>(&report)) {
    WordsToProto(bits->words, bits->num_bits, proto->mutable_bit_vector());
  } else if (const auto* hashed = std::get_if<HashedReport>(&report)) {
    proto->mutable_hashed()->set_seed(hashed->seed);
    proto->mutable_hashed()->set_bucket(hashed->bucket);
  } else if (const auto* subset = std::get_if<SubsetReport>(&report)) {
    proto->mutable_subset()->mutable_items()->Add(subset->items.begin(),
                                                  subset->items.end());
  } else {
    const auto& sketch = std::get<SketchReport>(report);
    proto->mutable_sketch()->set_row(sketch.row);
    proto->mutable_sketch()->set_column(sketch.column);
    WordsToProto(sketch.bits, sketch.num_bits,
                 proto->mutable_sketch()->mutable_bits());
  }
}

absl::StatusOr<WorkloadReport> WorkloadFromProto(
    const v1::WorkloadPayload& proto) {
  WorkloadReport report;
  report.group = proto.group();
  switch (proto.inner_case()) {
    case v1::WorkloadPayload::kItem:
      report.inner = ItemReport{.item = proto.item().item()};
      return report;
    case v1::WorkloadPayload::kBitVector: {
      ASSIGN_OR_RETURN(
          BitVectorReport bits,
          BitVectorFromProto(proto.bit_vector(), "workload.bit_vector"));
      report.inner = std::move(bits);
      return report;
    }
    case v1::WorkloadPayload::kHashed:
      report.inner = HashedReport{.seed = proto.hashed().seed(),
                                  .bucket = proto.hashed().bucket()};
      return report;
    case v1::WorkloadPayload::INNER_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "workload payload has no inner report (set item, bit_vector or hashed)");
}

void WorkloadToProto(const WorkloadReport& report, v1::WorkloadPayload* proto) {
  proto->set_group(report.group);
  if (const auto* item = std::get_if<ItemReport>(&report.inner)) {
    proto->mutable_item()->set_item(item->item);
  } else if (const auto* bits = std::get_if<BitVectorReport>(&report.inner)) {
    WordsToProto(bits->words, bits->num_bits, proto->mutable_bit_vector());
  } else if (const auto* hashed = std::get_if<HashedReport>(&report.inner)) {
    proto->mutable_hashed()->set_seed(hashed->seed);
    proto->mutable_hashed()->set_bucket(hashed->bucket);
  }
  // Strategies output nothing else; another inner report is left unset and
  // the server refuses it (no inner report).
}

}  // namespace

absl::StatusOr<ReportPayload> PayloadFromProto(const v1::Report& proto) {
  if (proto.payload_case() == v1::Report::kScalar) {
    return ReportPayload(ScalarReport{.level = proto.scalar().level()});
  }
  if (proto.payload_case() == v1::Report::kWorkload) {
    ASSIGN_OR_RETURN(WorkloadReport report,
                     WorkloadFromProto(proto.workload()));
    return ReportPayload(std::move(report));
  }
  ASSIGN_OR_RETURN(FrequencyReport report, FrequencyFromProto(proto));
  return ReportPayload(std::move(report));
}

void PayloadToProto(const ReportPayload& payload, v1::Report* proto) {
  if (const auto* scalar = std::get_if<ScalarReport>(&payload)) {
    proto->mutable_scalar()->set_level(scalar->level);
  } else if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    WorkloadToProto(*workload, proto->mutable_workload());
  } else {
    FrequencyToProto(std::get<FrequencyReport>(payload), proto);
  }
}

absl::StatusOr<TaskReport> ReportFromProto(const v1::Report& proto) {
  if (proto.protocol_version() != kWireProtocolVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("report.protocol_version must be ", kWireProtocolVersion,
                     ", got ", proto.protocol_version()));
  }
  TaskReport report;
  report.task_id = proto.task_id();
  if (proto.report_id().size() != report.report_id.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "report.report_id must have exactly ", report.report_id.size(),
        " bytes, got ", proto.report_id().size()));
  }
  std::copy(proto.report_id().begin(), proto.report_id().end(),
            report.report_id.begin());
  absl::StatusOr<ReportPayload> payload = PayloadFromProto(proto);
  if (!payload.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid report payload: ", payload.status().message()));
  }
  report.payload = *std::move(payload);
  return report;
}

void ReportToProto(const TaskReport& report, uint64_t agent_id,
                   v1::Report* proto) {
  proto->Clear();
  proto->set_protocol_version(kWireProtocolVersion);
  proto->set_task_id(report.task_id);
  proto->set_agent_id(agent_id);
  proto->set_report_id(report.report_id.data(), report.report_id.size());
  PayloadToProto(report.payload, proto);
}

std::string ReportToBytes(const TaskReport& report, uint64_t agent_id) {
  v1::Report proto;
  ReportToProto(report, agent_id, &proto);
  return DeterministicBytes(proto);
}

absl::StatusOr<TaskReport> ReportFromBytes(std::string_view bytes) {
  v1::Report proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        "bytes are not a serialized ldp.v1.Report");
  }
  return ReportFromProto(proto);
}

}  // namespace ldp
