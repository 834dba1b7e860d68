// The wire contract compiles, round-trips, and exposes the agreed services.
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {
namespace {

using ::google::protobuf::DescriptorPool;
using ::google::protobuf::ServiceDescriptor;
using ::google::protobuf::util::MessageDifferencer;

constexpr uint64_t kOneEpsilonNanos = 1'000'000'000;

template <typename T>
void ExpectRoundTrip(const T& message) {
  std::string bytes;
  ASSERT_TRUE(message.SerializeToString(&bytes));
  T parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_TRUE(MessageDifferencer::Equals(message, parsed))
      << message.DebugString() << "\nvs\n"
      << parsed.DebugString();
}

v1::RecordSchema AllKindsSchema() {
  v1::RecordSchema schema;
  auto* smoker = schema.add_fields();
  smoker->set_name("smoker");
  smoker->mutable_bool_field()->set_default_value(false);
  auto* age = schema.add_fields();
  age->set_name("age");
  age->mutable_int_field()->set_lower(0);
  age->mutable_int_field()->set_upper(120);
  auto* country = schema.add_fields();
  country->set_name("country");
  for (const char* c : {"fr", "de", "it"}) {
    country->mutable_categorical_field()->add_categories(c);
  }
  auto* income = schema.add_fields();
  income->set_name("income");
  income->mutable_real_field()->set_lower(0);
  income->mutable_real_field()->set_upper(1e6);
  auto* bits = schema.add_fields();
  bits->set_name("features");
  bits->mutable_bit_vector_field()->set_bit_length(12);
  return schema;
}

// if (age >= 18 and country == "fr") then clamp(income / 1000, 0, 100) else 0
v1::Query SampleQuery() {
  v1::Query query;
  auto* ite = query.mutable_root()->mutable_if_then_else();
  auto* both = ite->mutable_condition()->mutable_logical();
  both->set_op(v1::Logical::AND);
  auto* adult = both->mutable_left()->mutable_comparison();
  adult->set_op(v1::Comparison::GE);
  adult->mutable_left()->set_field("age");
  adult->mutable_right()->set_constant(18);
  auto* fr = both->mutable_right()->mutable_category_is();
  fr->set_field("country");
  fr->set_category("fr");
  auto* clamp = ite->mutable_then()->mutable_clamp();
  auto* div = clamp->mutable_operand()->mutable_arithmetic();
  div->set_op(v1::Arithmetic::DIVIDE);
  div->mutable_left()->set_field("income");
  div->mutable_right()->set_constant(1000);
  clamp->mutable_range()->set_lower(0);
  clamp->mutable_range()->set_upper(100);
  ite->mutable_otherwise()->set_constant(0);
  query.mutable_output_range()->set_lower(0);
  query.mutable_output_range()->set_upper(100);
  return query;
}

v1::StudySpec SampleStudy() {
  v1::StudySpec spec;
  spec.set_display_name("income by country");
  *spec.mutable_schema() = AllKindsSchema();
  spec.set_epsilon_cap_nanos(4 * kOneEpsilonNanos);
  spec.set_mode(v1::INTERACTIVE);
  spec.set_confidence(0.95);
  spec.set_quorum(10'000);
  spec.set_round_duration_seconds(3600);
  spec.mutable_deadline()->set_seconds(1'900'000'000);

  v1::Question* sq = spec.add_questions();
  sq->set_question_id("mean_income_fr");
  *sq->mutable_statistical_query() = SampleQuery();
  sq->mutable_randomizer()->set_epsilon_nanos(kOneEpsilonNanos);
  sq->mutable_randomizer()->mutable_piecewise()->set_num_cells(64);

  v1::Question* hist = spec.add_questions();
  hist->set_question_id("age_by_smoker");
  auto* product =
      hist->mutable_histogram()->mutable_encoding()->mutable_product();
  auto* age = product->add_fields();
  age->set_field("age");
  age->set_num_buckets(12);
  product->add_fields()->set_field("smoker");
  hist->mutable_histogram()->set_post_processing("norm_sub");
  hist->mutable_randomizer()->set_epsilon_nanos(kOneEpsilonNanos / 2);
  hist->mutable_randomizer()->set_domain_size(24);
  hist->mutable_randomizer()->mutable_olh()->set_num_buckets(0);
  hist->set_target_reports(50'000);
  return spec;
}

TEST(ProtoRoundTrip, StudySpec) {
  v1::CreateStudyRequest request;
  *request.mutable_spec() = SampleStudy();
  request.set_request_id("create-1");
  ExpectRoundTrip(request);
  EXPECT_EQ(request.spec().questions(0).statistical_query().root().node_case(),
            v1::Expression::kIfThenElse);
}

TEST(ProtoRoundTrip, TaskWithAParityQuery) {
  v1::Task task;
  task.set_study_id(7);
  task.set_round_id(2);
  task.set_task_id(123456789);
  auto* parity = task.mutable_query()->mutable_root()->mutable_masked_parity();
  parity->set_field("features");
  parity->mutable_mask()->set_packed(std::string("\x0f\x05", 2));
  parity->mutable_mask()->set_bit_length(12);
  task.mutable_query()->mutable_output_range()->set_lower(0);
  task.mutable_query()->mutable_output_range()->set_upper(1);
  task.mutable_randomizer()->set_epsilon_nanos(kOneEpsilonNanos / 4);
  task.mutable_randomizer()->mutable_duchi();
  task.set_epsilon_nanos(kOneEpsilonNanos / 4);
  task.mutable_deadline()->set_seconds(1'800'000'000);
  ExpectRoundTrip(task);

  v1::GetTasksResponse response;
  *response.add_tasks() = task;
  response.set_poll_after_seconds(30);
  ExpectRoundTrip(response);
}

TEST(ProtoRoundTrip, ReportBatchWithEveryPayload) {
  v1::UploadReportsRequest batch;
  auto add = [&batch](uint64_t task_id) {
    v1::Report* r = batch.add_reports();
    r->set_protocol_version(1);
    r->set_task_id(task_id);
    r->set_agent_id(42);
    r->set_report_id(std::string(16, static_cast<char>(task_id)));
    return r;
  };
  add(1)->mutable_item()->set_item(17);
  auto* bits = add(2)->mutable_bit_vector();
  bits->set_packed(std::string("\xff\x01", 2));
  bits->set_bit_length(9);
  auto* hashed = add(3)->mutable_hashed();
  hashed->set_seed(0xdeadbeefcafef00dULL);
  hashed->set_bucket(3);
  auto* subset = add(4)->mutable_subset();
  for (uint32_t item : {2u, 5u, 11u}) subset->add_items(item);
  auto* sketch = add(5)->mutable_sketch();
  sketch->set_row(7);
  sketch->set_column(1023);
  sketch->mutable_bits()->set_packed(std::string(1, '\x01'));
  sketch->mutable_bits()->set_bit_length(1);
  add(6)->mutable_scalar()->set_level(-123456789012LL);
  auto* workload = add(7)->mutable_workload();
  workload->set_group(3);
  workload->mutable_hashed()->set_seed(99);
  workload->mutable_hashed()->set_bucket(1);
  ExpectRoundTrip(batch);
  EXPECT_EQ(batch.reports(6).workload().inner_case(),
            v1::WorkloadPayload::kHashed);
  EXPECT_EQ(batch.reports(3).subset().items_size(), 3);
  EXPECT_EQ(batch.reports(5).payload_case(), v1::Report::kScalar);

  v1::UploadReportsResponse acks;
  for (const v1::Report& r : batch.reports()) {
    v1::ReportAck* ack = acks.add_acks();
    ack->set_report_id(r.report_id());
    ack->set_code(r.task_id() == 4 ? 3 : 0);
    if (ack->code() != 0) ack->set_message("subset items must be ascending");
  }
  ExpectRoundTrip(acks);
}

TEST(ProtoRoundTrip, Estimates) {
  v1::GetEstimatesResponse response;
  v1::QuestionEstimate* scalar = response.add_estimates();
  scalar->set_question_id("mean_income_fr");
  auto* s = scalar->mutable_scalar();
  s->set_value(41.5);
  s->set_standard_error(0.8);
  s->mutable_interval()->set_lower(39.9);
  s->mutable_interval()->set_upper(43.1);
  s->mutable_interval()->set_confidence(0.95);
  s->set_num_reports(100'000);
  s->set_epsilon_nanos(kOneEpsilonNanos);
  s->set_implemented_epsilon(0.9999999);
  s->set_mechanism("piecewise");
  v1::QuestionEstimate* hist = response.add_estimates();
  hist->set_question_id("age_by_smoker");
  auto* h = hist->mutable_histogram();
  for (double f : {0.25, 0.5, 0.3, -0.05}) {
    h->add_frequencies(f);
    h->add_standard_errors(0.01);
    h->add_interval_lower(f - 0.02);
    h->add_interval_upper(f + 0.02);
    h->add_labels("item");
  }
  h->set_confidence(0.95);
  h->set_mechanism("olh");
  h->mutable_post_processed()->set_method("norm_sub");
  for (double f : {0.25, 0.45, 0.3, 0.0}) {
    h->mutable_post_processed()->add_frequencies(f);
  }
  v1::QuestionEstimate* cdf = response.add_estimates();
  cdf->set_question_id("age_cdf");
  auto* w = cdf->mutable_workload();
  for (double a : {0.1, 0.4, 1.0}) {
    w->add_answers(a);
    w->add_standard_errors(0.01);
    w->add_band_lower(a - 0.04);
    w->add_band_upper(a + 0.04);
    w->add_labels("x ≤ t");
  }
  w->set_confidence(0.999);
  w->set_band_z(3.9);
  w->set_strategy("hierarchical b=4, OUE");
  w->set_workload("prefix N=3");
  w->set_predicted_v_max(12.5);
  ExpectRoundTrip(response);
}

void ExpectMethods(const std::string& service,
                   const std::vector<std::string>& methods) {
  const ServiceDescriptor* descriptor =
      DescriptorPool::generated_pool()->FindServiceByName(service);
  ASSERT_NE(descriptor, nullptr) << service;
  EXPECT_EQ(descriptor->method_count(), static_cast<int>(methods.size()));
  for (const std::string& method : methods) {
    EXPECT_NE(descriptor->FindMethodByName(method), nullptr)
        << service << "." << method;
  }
}

TEST(ProtoServices, AgentServiceHasTheAgreedMethods) {
  ExpectMethods("ldp.v1.AgentService",
                {"Enroll", "GetTasks", "UploadReports", "GetBudget"});
  const auto* upload = DescriptorPool::generated_pool()
                           ->FindServiceByName("ldp.v1.AgentService")
                           ->FindMethodByName("UploadReports");
  EXPECT_TRUE(upload->client_streaming());
  EXPECT_FALSE(upload->server_streaming());
  EXPECT_EQ(std::string(v1::AgentService::service_full_name()),
            "ldp.v1.AgentService");
}

TEST(ProtoServices, AnalystServiceHasTheAgreedMethods) {
  ExpectMethods("ldp.v1.AnalystService",
                {"CreateStudy", "GetStudy", "ListStudies", "StartRound",
                 "GetRound", "GetEstimates", "GetAgentBudget"});
  EXPECT_EQ(std::string(v1::AnalystService::service_full_name()),
            "ldp.v1.AnalystService");
}

TEST(ProtoServices, FilesAreNamedFromTheProjectRoot) {
  EXPECT_EQ(v1::Report::descriptor()->file()->name(),
            "proto/ldp/v1/types.proto");
  EXPECT_EQ(v1::Report::descriptor()->file()->package(), "ldp.v1");
}

}  // namespace
}  // namespace ldp
