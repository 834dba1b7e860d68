// Fixtures for the fuzz targets (see fuzz_fixtures.h).
#include "tests/fuzz/fuzz_fixtures.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "proto/convert/study_convert.h"
#include "tests/testing/survey_study.h"

namespace ldp::fuzz {
namespace {

constexpr int64_t kGenerousCharge = 8 * kNanosPerEpsilon;

std::shared_ptr<const TaskMechanism> Build(Task task) {
  auto mechanism = TaskMechanism::Create(task);
  Check(mechanism.ok(), "fixture task rejected");
  return *std::move(mechanism);
}

Task HistogramTaskWith(FrequencyOracleSpec oracle) {
  auto encoding = DomainEncoding::Create(
      ProductEncoding{
          .fields = {{.field = "region"}, {.field = "age", .num_buckets = 8}}},
      Schema());
  Check(encoding.ok(), "fixture encoding rejected");
  oracle.epsilon = 1;
  oracle.domain_size = encoding->domain_size();
  return Task{
      .task_id = 1,
      .epsilon_nanos = kGenerousCharge,
      .question = HistogramTask{.encoding = *encoding, .oracle = oracle}};
}

// Workload strategies over the same region × age domain (N = 64 = 2^6).
Task WorkloadTaskWith(StrategySpec strategy) {
  auto encoding = DomainEncoding::Create(
      ProductEncoding{
          .fields = {{.field = "region"}, {.field = "age", .num_buckets = 8}}},
      Schema());
  Check(encoding.ok(), "fixture encoding rejected");
  strategy.epsilon = 1;
  strategy.domain_size = encoding->domain_size();
  return Task{.task_id = 3,
              .epsilon_nanos = kGenerousCharge,
              .question = WorkloadTask{.encoding = *encoding,
                                       .strategy = std::move(strategy)}};
}

std::vector<StrategySpec> WorkloadStrategies() {
  constexpr uint32_t kN = 64;
  std::vector<StrategySpec> specs(8);
  specs[0].kind = StrategyKind::kIdentity;
  specs[1].kind = StrategyKind::kHierarchical;
  specs[1].branching = 4;
  specs[2].kind = StrategyKind::kHaar;
  specs[3].kind = StrategyKind::kFourier;
  specs[3].num_bits = 6;
  specs[3].order = 2;
  specs[3].level_weights = {1, 2};
  // Randomized response as a matrix, at e^0.9 < e^1 so rounding its
  // entries cannot push it past ε = 1.
  specs[4].kind = StrategyKind::kMatrix;
  specs[4].rows = kN;
  const double e = std::exp(0.9);
  for (uint32_t o = 0; o < kN; ++o) {
    for (uint32_t x = 0; x < kN; ++x) {
      specs[4].matrix.push_back((o == x ? e : 1.0) / (e + kN - 1));
    }
  }
  specs[5].kind = StrategyKind::kFactorization;
  specs[5].rows = kN;
  for (uint32_t r = 0; r < kN; ++r) {
    for (uint32_t x = 0; x < kN; ++x) specs[5].matrix.push_back(r == x ? 1 : 0);
  }
  specs[6].kind = StrategyKind::kRandomSamplingFakeData;
  specs[6].attribute_sizes = {8, 8};  // region × age in 8 buckets
  // The unary forms share one decoder; OUE-r has the more involved coins.
  specs[7].kind = StrategyKind::kFakeDataUnaryRandom;
  specs[7].attribute_sizes = {4, 16};
  return specs;
}

Task IncomeTaskWith(RealMechanismKind kind) {
  auto query = Query::Create(expr::Field("income"), {0, 200}, Schema());
  Check(query.ok(), "fixture query rejected");
  return Task{.task_id = 2,
              .epsilon_nanos = kGenerousCharge,
              .question = StatisticalQueryTask{
                  .query = *query,
                  .mechanism = {.kind = kind, .epsilon = 1, .bound = 100}}};
}

// protobuf logs an ERROR line for every string field of invalid UTF-8 it
// refuses to parse: most fuzzed inputs. Writing them cost the targets more
// than parsing did, and a campaign's logs would run to gigabytes. Every
// target links this file (Check), so this runs before any input; FATAL
// messages (a protobuf CHECK failing, which then aborts) are still printed.
void QuietLog(google::protobuf::LogLevel level, const char* file, int line,
              const std::string& message) {
  if (level < google::protobuf::LOGLEVEL_FATAL) return;
  std::fprintf(stderr, "[libprotobuf FATAL %s:%d] %s\n", file, line,
               message.c_str());
}
google::protobuf::LogHandler* const kDefaultLog =
    google::protobuf::SetLogHandler(&QuietLog);

}  // namespace

void RestoreProtobufLogging() { google::protobuf::SetLogHandler(kDefaultLog); }

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz property failed: %s\n", what);
  std::abort();
}

const RecordSchema& Schema() {
  static const RecordSchema* schema = [] {
    auto created = RecordSchema::Create(
        {FieldSpec::Int("age", 18, 89), FieldSpec::Bool("smoker"),
         FieldSpec::Categorical(
             "region", {"north", "south", "east", "west", "center", "coast",
                        "islands", "abroad"}),
         FieldSpec::Real("income", 0, 200), FieldSpec::BitVector("bits", 16)});
    Check(created.ok(), "fixture schema rejected");
    return new RecordSchema(*std::move(created));
  }();
  return *schema;
}

const std::vector<Record>& Records() {
  static const auto* records = [] {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    auto* out = new std::vector<Record>();
    Record typical;
    typical.values = {{"age", int64_t{40}},
                      {"smoker", true},
                      {"region", std::string("coast")},
                      {"income", 55.5},
                      {"bits", std::vector<bool>(16, true)}};
    out->push_back(typical);
    out->push_back(Record{});
    Record wrong_types;
    wrong_types.values = {{"age", std::string("old")},
                          {"smoker", 3.5},
                          {"region", int64_t{2}},
                          {"income", true},
                          {"bits", std::string("1010")}};
    out->push_back(wrong_types);
    Record extreme;
    extreme.values = {{"age", std::numeric_limits<int64_t>::min()},
                      {"smoker", false},
                      {"region", std::string("atlantis")},
                      {"income", std::nan("")},
                      {"bits", std::vector<bool>(3, true)}};
    out->push_back(extreme);
    Record infinite;
    infinite.values = {{"age", -kInf},
                       {"income", kInf},
                       {"bits", std::vector<bool>(5000, true)},
                       {"unknown_field", 1.0}};
    out->push_back(infinite);
    Record huge;
    huge.values = {
        {"age", 1e308}, {"income", -1e308}, {"region", std::string("")}};
    out->push_back(huge);
    return out;
  }();
  return *records;
}

const std::vector<std::shared_ptr<const TaskMechanism>>& Mechanisms() {
  static const auto* mechanisms = [] {
    auto* out = new std::vector<std::shared_ptr<const TaskMechanism>>();
    using K = FrequencyOracleKind;
    for (K kind :
         {K::kGeneralizedRandomizedResponse, K::kOptimizedUnaryEncoding,
          K::kSymmetricUnaryEncoding, K::kOptimizedLocalHashing,
          K::kSubsetSelection, K::kHadamardResponse}) {
      out->push_back(Build(HistogramTaskWith({.kind = kind})));
    }
    // Sketches of 8 × 128 cells rather than 64 × 1024 (512 KiB of counters,
    // and as much again per estimate): see fuzz_fixtures.h.
    for (K kind : {K::kCountMeanSketch, K::kHadamardCountMeanSketch}) {
      out->push_back(Build(HistogramTaskWith(
          {.kind = kind, .num_hashes = 8, .num_columns = 128})));
    }
    for (K kind : {K::kLongitudinalUnaryEncoding, K::kLongitudinalGrr,
                   K::kLongitudinalLocalHashing}) {
      out->push_back(
          Build(HistogramTaskWith({.kind = kind, .epsilon_permanent = 2})));
    }
    // 8 cohorts rather than 64: the decode's design has a row block per
    // cohort, and every estimate refits it.
    out->push_back(Build(HistogramTaskWith(
        {.kind = K::kRappor, .epsilon_permanent = 2, .num_cohorts = 8})));
    out->push_back(Build(HistogramTaskWith({.kind = K::kDBitFlip})));
    using R = RealMechanismKind;
    for (R kind : {R::kDiscreteLaplace, R::kDuchi, R::kPiecewise, R::kHybrid}) {
      out->push_back(Build(IncomeTaskWith(kind)));
    }
    for (StrategySpec& spec : WorkloadStrategies()) {
      out->push_back(Build(WorkloadTaskWith(std::move(spec))));
    }
    return out;
  }();
  return *mechanisms;
}

const WorkloadEstimation& Estimation(size_t i) {
  static const auto* estimations = [] {
    auto* out = new std::vector<WorkloadEstimation>();
    for (const auto& mechanism : Mechanisms()) {
      out->emplace_back();
      if (mechanism->strategy_randomizer() == nullptr) continue;
      auto strategy = TaskStrategy(*mechanism);
      Check(strategy.ok(), "fixture strategy not built");
      out->back().strategy = *std::move(strategy);
    }
    return out;
  }();
  return estimations->at(i);
}

const StudySpec& Study() {
  static const StudySpec* study = [] {
    v1::StudySpec proto;
    Check(google::protobuf::TextFormat::ParseFromString(
              ::ldp::testing::kSurveyStudyText, &proto),
          "fixture study does not parse");
    auto spec = StudySpecFromProto(proto);
    Check(spec.ok(), "fixture study rejected");
    return new StudySpec(*std::move(spec));
  }();
  return *study;
}

}  // namespace ldp::fuzz
