#include "tools/loadtest/loadtest_study.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "common/workload/strategies/workload.h"
#include "proto/convert/study_convert.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {
namespace {

absl::StatusOr<StudySpec> MakeWorkloadStudySpec(
    const PopulationSource& population, const LoadtestConfig& config) {
  const bool bits = config.num_bits > 0;
  const RecordSchema schema =
      bits ? BitSchema(config.num_bits) : population.schema();
  DomainEncodingSpec encoding_spec = FieldEncoding{.field = "item"};
  if (bits) {
    ProductEncoding product;
    for (uint32_t i = 0; i < config.num_bits; ++i) {
      product.fields.push_back({.field = absl::StrCat("bit", i)});
    }
    encoding_spec = std::move(product);
  }
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   DomainEncoding::Create(encoding_spec, schema));
  return StudySpec{.display_name = absl::StrCat(
                       "ldp-loadtest: ", config.workload_name, " workload, ",
                       population.num_agents(), " agents"),
                   .schema = schema,
                   .epsilon_cap_nanos = config.epsilon_nanos,
                   .mode = StudyMode::kNoninteractive,
                   .questions = {Question{
                       .id = kLoadtestWorkloadId,
                       .kind = WorkloadQuestion{.encoding = std::move(encoding),
                                                .workload = *config.workload,
                                                .strategy = config.strategy}}},
                   .confidence = config.confidence,
                   .round_duration = config.round_duration,
                   .shuffle = config.shuffle};
}

}  // namespace

absl::StatusOr<std::optional<StrategyChoice>> ParseStrategy(
    const std::string& name) {
  if (name.empty()) return std::nullopt;
  for (StrategyKind kind :
       {StrategyKind::kIdentity, StrategyKind::kHierarchical,
        StrategyKind::kHaar, StrategyKind::kFourier, StrategyKind::kMatrix,
        StrategyKind::kFactorization, StrategyKind::kAttributeSampling,
        StrategyKind::kRandomSamplingFakeData, StrategyKind::kFakeDataUnaryZero,
        StrategyKind::kFakeDataUnaryRandom}) {
    if (StrategyKindName(kind) == name) return StrategyChoice{.kind = kind};
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--strategy must be identity, hierarchical, haar, fourier, matrix, "
      "factorization, attribute_sampling, sampling_fake_data (any RS+FD "
      "form), sampling_fake_data_oue_z or sampling_fake_data_oue_r (or "
      "empty), "
      "got '",
      name, "'"));
}

absl::Status SetWorkload(const std::string& name, uint32_t n, int order,
                         const std::string& strategy, LoadtestConfig& config) {
  if (name.empty()) return absl::OkStatus();
  const std::pair<const char*, WorkloadKind> kinds[] = {
      {"prefix", WorkloadKind::kPrefix},
      {"all_range", WorkloadKind::kAllRange},
      {"histogram", WorkloadKind::kHistogram},
      {"marginals", WorkloadKind::kMarginals},
      {"parities", WorkloadKind::kParities}};
  std::optional<WorkloadKind> kind;
  for (const auto& [kind_name, k] : kinds) {
    if (name == kind_name) kind = k;
  }
  if (!kind.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--workload must be prefix, all_range, histogram, marginals or "
        "parities, got '",
        name, "'"));
  }
  WorkloadSpec spec{.kind = *kind};
  if (*kind == WorkloadKind::kMarginals || *kind == WorkloadKind::kParities) {
    while ((uint64_t{1} << config.num_bits) < n) ++config.num_bits;
    if ((uint64_t{1} << config.num_bits) != n || config.num_bits > 12) {
      return absl::InvalidArgumentError(
          absl::StrCat("--workload=", name,
                       " splits the item into bits: --domain must be "
                       "a power of two from 2 to 4096, got ",
                       n));
    }
    spec.num_bits = config.num_bits;
    spec.order = static_cast<uint32_t>(order);
  } else {
    spec.domain_size = n;
  }
  RETURN_IF_ERROR(Workload::Create(spec).status());
  config.workload = std::move(spec);
  config.workload_name = name;
  ASSIGN_OR_RETURN(config.strategy, ParseStrategy(strategy));
  return absl::OkStatus();
}

RecordSchema BitSchema(uint32_t num_bits) {
  std::vector<FieldSpec> fields;
  for (uint32_t i = 0; i < num_bits; ++i) {
    fields.push_back(FieldSpec::Bool(absl::StrCat("bit", i)));
  }
  return *RecordSchema::Create(std::move(fields));
}

Record BitRecord(uint32_t item, uint32_t num_bits) {
  Record record;
  for (uint32_t i = 0; i < num_bits; ++i) {
    record.values[absl::StrCat("bit", i)] =
        static_cast<bool>((item >> (num_bits - 1 - i)) & 1);
  }
  return record;
}

namespace {

// The study of the run's kind, without its quorum.
absl::StatusOr<StudySpec> SpecOfKind(const PopulationSource& population,
                                     const LoadtestConfig& config) {
  if (config.workload.has_value())
    return MakeWorkloadStudySpec(population, config);
  if (config.rappor.has_value()) {
    return MakeRapporStudySpec(
        *config.rappor,
        absl::StrCat("ldp-loadtest: RAPPOR over ",
                     config.rappor->num_candidates, " candidates, ",
                     population.num_agents(), " agents"),
        config.epsilon_nanos, config.confidence, config.round_duration);
  }
  const RecordSchema& schema = population.schema();
  ASSIGN_OR_RETURN(
      DomainEncoding encoding,
      DomainEncoding::Create(FieldEncoding{.field = "item"}, schema));
  ASSIGN_OR_RETURN(Query mean,
                   Query::Create(expr::Field("value"), {0, 1}, schema));
  return StudySpec{
      .display_name =
          absl::StrCat("ldp-loadtest: ", population.num_agents(), " agents"),
      .schema = schema,
      .epsilon_cap_nanos = config.epsilon_nanos,
      .mode = StudyMode::kNoninteractive,
      .questions = {Question{
                        .id = kLoadtestHistogramId,
                        .kind =
                            HistogramQuestion{.encoding = std::move(encoding),
                                              .oracle = std::nullopt,
                                              .post_processing = std::nullopt}},
                    Question{.id = kLoadtestMeanId,
                             .kind =
                                 StatisticalQueryQuestion{
                                     .query = std::move(mean),
                                     .mechanism = RealMechanismKind::kHybrid}}},
      .confidence = config.confidence,
      .round_duration = config.round_duration,
      .shuffle = config.shuffle};
}

}  // namespace

absl::StatusOr<StudySpec> MakeStudySpec(const PopulationSource& population,
                                        const LoadtestConfig& config) {
  ASSIGN_OR_RETURN(StudySpec spec, SpecOfKind(population, config));
  spec.quorum = config.quorum;
  return spec;
}

absl::StatusOr<uint64_t> CreateStudy(const AnalystClient& analyst,
                                     const StudySpec& spec) {
  v1::CreateStudyRequest request;
  ToProto(spec, request.mutable_spec());
  ASSIGN_OR_RETURN(const v1::Study study, analyst.CreateStudy(request));
  return study.study_id();
}

}  // namespace ldp
