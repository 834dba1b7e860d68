// Workload questions between ldp.v1 and study_spec.h; see the header.
#include "proto/convert/workload_convert.h"

#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/workload/specs/workload_spec.h"
#include "proto/convert/encoding_convert.h"
#include "proto/convert/randomizer_convert.h"

namespace ldp {
namespace {

bool IsBitWorkload(WorkloadKind kind) {
  return kind == WorkloadKind::kMarginals || kind == WorkloadKind::kParities;
}

// The fields of a product (or single-field) encoding; empty for any other.
std::vector<FieldEncoding> EncodedFields(const DomainEncoding& encoding) {
  if (const auto* field = std::get_if<FieldEncoding>(&encoding.spec())) {
    return {*field};
  }
  if (const auto* product = std::get_if<ProductEncoding>(&encoding.spec())) {
    return product->fields;
  }
  return {};
}

// The number of bool fields of a product (or single-field) encoding of bool
// fields only; InvalidArgument naming the first field that is not one.
absl::StatusOr<uint32_t> BoolFieldCount(const DomainEncoding& encoding,
                                        const RecordSchema& schema) {
  const std::vector<FieldEncoding> fields = EncodedFields(encoding);
  if (fields.empty()) {
    return absl::InvalidArgumentError(
        "marginal and parity workloads need an encoding that is a product of "
        "bool fields (or a single bool field)");
  }
  for (const FieldEncoding& f : fields) {
    const FieldSpec* spec = schema.Find(f.field);
    if (spec == nullptr || spec->kind != FieldKind::kBool) {
      return absl::InvalidArgumentError(absl::StrCat(
          "marginal and parity workloads read bool fields only; encoding "
          "field \"",
          f.field, "\" is not a bool field"));
    }
  }
  if (fields.size() > kMaxWorkloadBits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "marginal and parity workloads read at most ", kMaxWorkloadBits,
        " bool fields, the encoding has ", fields.size()));
  }
  return static_cast<uint32_t>(fields.size());
}

// Attribute marginals: each field of a product (or single-field) encoding
// is one attribute, with its own encoding's size, and the queries are
// labelled with that encoding's item names ("region=north").
absl::Status FillAttributes(const DomainEncoding& encoding,
                            const RecordSchema& schema, WorkloadSpec& spec) {
  const std::vector<FieldEncoding> fields = EncodedFields(encoding);
  if (fields.empty()) {
    return absl::InvalidArgumentError(
        "an ATTRIBUTE_MARGINALS workload needs an encoding that is a product "
        "of fields (or a single field)");
  }
  for (const FieldEncoding& f : fields) {
    ASSIGN_OR_RETURN(const DomainEncoding one,
                     DomainEncoding::Create(f, schema));
    spec.attribute_sizes.push_back(one.domain_size());
    for (uint32_t v = 0; v < one.domain_size(); ++v) {
      spec.labels.push_back(one.Describe(v));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCustomDataAbsent(const v1::Workload& proto) {
  if (proto.num_queries() != 0 || proto.dense_size() != 0 ||
      proto.sparse_size() != 0 || proto.labels_size() != 0) {
    return absl::InvalidArgumentError(
        "workload.num_queries, dense, sparse and labels are for CUSTOM "
        "workloads only");
  }
  return absl::OkStatus();
}

absl::StatusOr<WorkloadSpec> SpecFromProto(const v1::Workload& proto,
                                           const DomainEncoding& encoding,
                                           const RecordSchema& schema) {
  ASSIGN_OR_RETURN(const WorkloadKind kind,
                   WorkloadKindFromProto(proto.kind()));
  WorkloadSpec spec{.kind = kind, .order = proto.order()};
  const uint32_t n = encoding.domain_size();
  if (IsBitWorkload(kind)) {
    ASSIGN_OR_RETURN(const uint32_t d, BoolFieldCount(encoding, schema));
    if (proto.num_bits() != 0 && proto.num_bits() != d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "workload.num_bits is ", proto.num_bits(), " but the encoding has ",
          d, " bool fields; leave it 0 or make them equal"));
    }
    if (proto.domain_size() != 0 && proto.domain_size() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "workload.domain_size is ", proto.domain_size(),
          " but the encoding's domain has ", n, " items; leave it 0"));
    }
    spec.num_bits = d;
  } else {
    if (proto.num_bits() != 0) {
      return absl::InvalidArgumentError(
          "workload.num_bits is for MARGINALS and PARITIES only");
    }
    if (proto.domain_size() != 0 && proto.domain_size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload.domain_size is ", proto.domain_size(),
                       " but the encoding's domain has ", n,
                       " items; leave it 0 or make them equal"));
    }
    if (n > kMaxWorkloadDomainSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the encoding's domain has ", n, " items; a workload allows at most ",
          kMaxWorkloadDomainSize, " (bucketize the field)"));
    }
    spec.domain_size = n;
  }
  if (!IsBitWorkload(kind) && proto.order() != 0) {
    return absl::InvalidArgumentError(
        "workload.order is for MARGINALS and PARITIES only");
  }
  if (kind != WorkloadKind::kCustom) {
    RETURN_IF_ERROR(CheckCustomDataAbsent(proto));
    if (kind == WorkloadKind::kAttributeMarginals) {
      RETURN_IF_ERROR(FillAttributes(encoding, schema, spec));
    }
    return spec;
  }
  if (proto.dense_size() != 0 && proto.sparse_size() != 0) {
    return absl::InvalidArgumentError(
        "a CUSTOM workload gives either dense or sparse entries, not both");
  }
  if (static_cast<uint64_t>(proto.dense_size()) > kMaxCustomWorkloadEntries ||
      static_cast<uint64_t>(proto.sparse_size()) > kMaxCustomWorkloadEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("a CUSTOM workload has at most ",
                     kMaxCustomWorkloadEntries, " entries"));
  }
  spec.num_queries = proto.num_queries();
  spec.dense.assign(proto.dense().begin(), proto.dense().end());
  spec.sparse.reserve(proto.sparse_size());
  for (const v1::WorkloadEntry& e : proto.sparse()) {
    spec.sparse.push_back(
        {.row = e.row(), .column = e.column(), .value = e.value()});
  }
  spec.labels.assign(proto.labels().begin(), proto.labels().end());
  return spec;
}

absl::StatusOr<std::optional<StrategyChoice>> ChoiceFromProto(
    const v1::WorkloadQuestion& proto) {
  if (!proto.has_strategy()) return std::nullopt;
  absl::StatusOr<StrategyKind> kind =
      StrategyKindFromProto(proto.strategy().kind());
  if (!kind.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload strategy: ", kind.status().message(),
                     " (or leave strategy unset for the planner's choice)"));
  }
  const uint32_t b = proto.strategy().branching();
  if (*kind != StrategyKind::kHierarchical && b != 0) {
    return absl::InvalidArgumentError(
        "strategy.branching is for HIERARCHICAL strategies only");
  }
  if (b == 1) {
    return absl::InvalidArgumentError(
        "strategy.branching must be 0 (the planner's best) or >= 2, got 1");
  }
  return StrategyChoice{.kind = *kind, .branching = b};
}

absl::Status CheckRandomizer(const v1::RandomizerSpec& randomizer, uint32_t n) {
  if (randomizer.mechanism_case() != v1::RandomizerSpec::MECHANISM_NOT_SET) {
    return absl::InvalidArgumentError(
        "a workload question takes its strategy from workload.strategy; "
        "leave the randomizer's mechanism unset (only epsilon_nanos)");
  }
  if (randomizer.domain_size() != 0 && randomizer.domain_size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("randomizer.domain_size is ", randomizer.domain_size(),
                     " but the encoding's domain has ", n,
                     " items; leave it 0 or make them equal"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WorkloadKind> WorkloadKindFromProto(int kind) {
  switch (kind) {
    case v1::Workload::HISTOGRAM:
      return WorkloadKind::kHistogram;
    case v1::Workload::PREFIX:
      return WorkloadKind::kPrefix;
    case v1::Workload::ALL_RANGE:
      return WorkloadKind::kAllRange;
    case v1::Workload::MARGINALS:
      return WorkloadKind::kMarginals;
    case v1::Workload::PARITIES:
      return WorkloadKind::kParities;
    case v1::Workload::CUSTOM:
      return WorkloadKind::kCustom;
    case v1::Workload::ATTRIBUTE_MARGINALS:
      return WorkloadKind::kAttributeMarginals;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "workload.kind must be HISTOGRAM, PREFIX, ALL_RANGE, MARGINALS, "
          "PARITIES, CUSTOM or ATTRIBUTE_MARGINALS, got ",
          kind));
  }
}

v1::Workload::Kind WorkloadKindToProto(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kHistogram:
      return v1::Workload::HISTOGRAM;
    case WorkloadKind::kPrefix:
      return v1::Workload::PREFIX;
    case WorkloadKind::kAllRange:
      return v1::Workload::ALL_RANGE;
    case WorkloadKind::kMarginals:
      return v1::Workload::MARGINALS;
    case WorkloadKind::kParities:
      return v1::Workload::PARITIES;
    case WorkloadKind::kCustom:
      return v1::Workload::CUSTOM;
    case WorkloadKind::kAttributeMarginals:
      return v1::Workload::ATTRIBUTE_MARGINALS;
  }
  return v1::Workload::KIND_UNSPECIFIED;
}

absl::StatusOr<WorkloadQuestion> WorkloadQuestionFromProto(
    const v1::WorkloadQuestion& proto, const v1::RandomizerSpec& randomizer,
    const RecordSchema& schema) {
  if (!proto.has_encoding()) {
    return absl::InvalidArgumentError("workload.encoding is missing");
  }
  if (!proto.has_workload()) {
    return absl::InvalidArgumentError("workload.workload is missing");
  }
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   EncodingFromProto(proto.encoding(), schema));
  RETURN_IF_ERROR(CheckRandomizer(randomizer, encoding.domain_size()));
  ASSIGN_OR_RETURN(WorkloadSpec spec,
                   SpecFromProto(proto.workload(), encoding, schema));
  // The library's own checks (k ≤ d, custom shapes, finiteness, ...).
  if (absl::StatusOr<uint64_t> checked = CheckWorkloadSpec(spec);
      !checked.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload: ", checked.status().message()));
  }
  ASSIGN_OR_RETURN(std::optional<StrategyChoice> choice,
                   ChoiceFromProto(proto));
  return WorkloadQuestion{.encoding = std::move(encoding),
                          .workload = std::move(spec),
                          .strategy = choice,
                          .consistency = proto.consistency()};
}

void ToProto(const WorkloadQuestion& question, v1::WorkloadQuestion* proto) {
  proto->Clear();
  ToProto(question.encoding, proto->mutable_encoding());
  const WorkloadSpec& spec = question.workload;
  v1::Workload* w = proto->mutable_workload();
  w->set_kind(WorkloadKindToProto(spec.kind));
  if (IsBitWorkload(spec.kind)) {
    w->set_num_bits(spec.num_bits);
    w->set_order(spec.order);
  } else {
    w->set_domain_size(spec.domain_size);
  }
  if (spec.kind == WorkloadKind::kCustom) {
    w->set_num_queries(spec.num_queries);
    w->mutable_dense()->Add(spec.dense.begin(), spec.dense.end());
    for (const SparseEntry& e : spec.sparse) {
      v1::WorkloadEntry* entry = w->add_sparse();
      entry->set_row(e.row);
      entry->set_column(e.column);
      entry->set_value(e.value);
    }
    for (const std::string& label : spec.labels) w->add_labels(label);
  }
  if (question.strategy.has_value()) {
    proto->mutable_strategy()->set_kind(
        StrategyKindToProto(question.strategy->kind));
    proto->mutable_strategy()->set_branching(question.strategy->branching);
  }
  proto->set_consistency(question.consistency);
}

}  // namespace ldp
