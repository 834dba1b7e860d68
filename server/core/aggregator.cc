// The Aggregator facade, and the analysts' study calls Impl keeps for
// itself: create, read, list, advance, and estimates. Every other job lives
// in a collaborator (see aggregator_impl.h).
#include "server/core/aggregator.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/tasks/task_id.h"
#include "server/core/aggregator_impl.h"
#include "server/core/credential.h"
#include "server/store/study_codec.h"

namespace ldp {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 1000;
constexpr size_t kMinAnalystTokenLength = 16;

// Stores a new study with its first round in one transaction, then
// registers it; a retried request id gets the study stored first.
class CreateStudyJob final : public CommitJob {
 public:
  CreateStudyJob(const AggregatorContext& context, StudyRegistry& studies,
                 std::shared_ptr<StudyRuntime> study, RoundRow round_row,
                 absl::StatusOr<uint64_t>* result, absl::Notification* done)
      : context_(context),
        studies_(studies),
        study_(std::move(study)),
        spec_bytes_(EncodeStudySpec(*study_->spec)),
        round_row_(std::move(round_row)),
        result_(result),
        done_(done) {}

  absl::Status Apply(StoreTransaction& transaction) override {
    ASSIGN_OR_RETURN(
        holder_, transaction.InsertStudy({.study_id = study_->study_id,
                                          .spec = spec_bytes_,
                                          .request_id = study_->request_id,
                                          .state = StudyState::kActive,
                                          .created_at = study_->created_at}));
    if (holder_ != study_->study_id) return absl::OkStatus();  // a retry
    return transaction.InsertRound(round_row_);
  }

  void Finish(const absl::Status& commit_status) override {
    if (!commit_status.ok()) {
      *result_ = absl::UnavailableError(absl::StrCat(
          "the study was not stored (", commit_status.message(), "); retry"));
    } else {
      if (holder_ == study_->study_id) {
        studies_.Register(study_);
        context_.Log(LogLevel::kInfo, "study_created",
                     {{"study", absl::StrCat(study_->study_id)},
                      {"name", study_->spec->display_name},
                      {"mode", study_->spec->mode == StudyMode::kInteractive
                                   ? "interactive"
                                   : "noninteractive"},
                      {"round", absl::StrCat(round_row_.round_id)}});
      }
      *result_ = holder_;
    }
    done_->Notify();
  }

 private:
  const AggregatorContext& context_;
  StudyRegistry& studies_;
  std::shared_ptr<StudyRuntime> study_;
  std::string spec_bytes_;
  RoundRow round_row_;
  uint64_t holder_ = 0;
  absl::StatusOr<uint64_t>* result_;
  absl::Notification* done_;
};

std::string MechanismName(const QuestionDecision& decision) {
  if (const auto* real = std::get_if<RealMechanismSpec>(&decision.randomizer)) {
    return std::string(RealMechanismKindName(real->kind));
  }
  if (const auto* strategy =
          std::get_if<StrategyDecision>(&decision.randomizer)) {
    return std::string(StrategyKindName(strategy->spec.kind));
  }
  return std::string(FrequencyOracleKindName(
      std::get<FrequencyOracleSpec>(decision.randomizer).kind));
}

absl::Status ValidateOptions(const AggregatorOptions& options) {
  if (options.clock == nullptr) {
    return absl::InvalidArgumentError("AggregatorOptions needs a clock");
  }
  if (options.analyst_token.size() < kMinAnalystTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the analyst token must have at least ", kMinAnalystTokenLength,
        " characters, got ", options.analyst_token.size()));
  }
  absl::flat_hash_set<std::string_view> tokens;
  if (!options.enrollment_token.empty())
    tokens.insert(options.enrollment_token);
  for (const EnrollmentQuota& quota : options.enrollment_quotas) {
    if (quota.token.empty() || quota.max_agents < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("every enrollment quota needs a non-empty token and "
                       "max_agents >= 1, got ",
                       quota.max_agents, " agents for a token of ",
                       quota.token.size(), " characters"));
    }
    if (!tokens.insert(quota.token).second) {
      return absl::InvalidArgumentError(
          "an enrollment token is listed twice; each token must have one "
          "quota");
    }
  }
  if (options.follow_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("follow_interval must be > 0");
  }
  if (options.default_max_tasks < 1 || options.max_reports_per_call < 1 ||
      options.max_writes_per_commit < 1) {
    return absl::InvalidArgumentError(
        "default_max_tasks, max_reports_per_call and max_writes_per_commit "
        "must be >= 1");
  }
  return absl::OkStatus();
}

}  // namespace

Task TaskAssignment::MakeTask() const {
  Task task = *question;
  task.task_id = task_id;
  return task;
}

Aggregator::Impl::Impl(const AggregatorOptions& options,
                       std::unique_ptr<Store> store,
                       std::unique_ptr<SecureRandom> random)
    : options_(options),
      analyst_hash_(Sha256(options.analyst_token)),
      store_(std::move(store)),
      lanes_(std::make_unique<CommitLanes>(
          store_.get(), options.max_writes_per_commit, options.clock,
          [this](absl::Duration commit) { stats_.RecordCommit(commit); },
          options.max_queued_writes)),
      context_{.options = options_,
               .store = *store_,
               .lanes = *lanes_,
               .stats = stats_},
      agents_(context_, std::move(random)),
      studies_(*store_),
      programs_(options_, studies_),
      // follower_ is constructed later but before any job runs.
      lifecycle_(context_, studies_, programs_,
                 [follower = &follower_] {
                   return follower->Follow(/*with_ledger=*/false);
                 }),
      ingest_(context_, studies_, agents_, lifecycle_),
      shuffled_(context_, studies_, lifecycle_),
      restorer_(context_, agents_, studies_, programs_, lifecycle_),
      follower_(context_, studies_, programs_, lifecycle_, restorer_) {}

// Stop following first (it reads what the jobs write), then finish every
// queued write while everything the jobs touch is alive.
Aggregator::Impl::~Impl() {
  follower_.Stop();
  lanes_->Stop();
}

absl::Status Aggregator::Impl::Start() {
  RETURN_IF_ERROR(restorer_.Load(follower_));
  follower_.Start();
  return absl::OkStatus();
}

absl::Status Aggregator::Impl::AuthenticateAnalyst(
    std::string_view token) const {
  if (!SameCredentialHash(Sha256(token), analyst_hash_)) {
    return absl::UnauthenticatedError("wrong analyst token");
  }
  return absl::OkStatus();
}

namespace {

RoundInfo MakeRoundInfo(const RoundRuntime& round) {
  const RoundPlan& plan = round.plan();
  RoundInfo info{.round_id = round.round_id(),
                 .state = round.state(),
                 .start_time = round.start_time(),
                 .deadline = round.deadline(),
                 .strategy = plan.strategy(),
                 .plan_explanation = plan.decisions().explanation};
  if (plan.decisions().from_program) {
    info.name = plan.decisions().round_name;
    info.slice = plan.slice();
    info.from_program = true;
    // Restore decoded these bytes already; they cannot fail here.
    info.program_questions =
        DecodeQuestions(plan.decisions().questions_bytes, round.study()->schema)
            .value_or(std::vector<Question>{});
  }
  for (int q = 0; q < round.num_questions(); ++q) {
    const PlannedQuestion& planned = plan.questions()[q];
    info.questions.push_back(
        {.question_id = planned.question_id,
         .epsilon_nanos = planned.task->epsilon_nanos,
         .implemented_epsilon = planned.mechanism->implemented_epsilon(),
         .mechanism = MechanismName(plan.decisions().questions[q]),
         .share = plan.Share(q),
         .num_reports = round.num_reports(q),
         .question = round.task(q)});
  }
  return info;
}

QuestionEstimate EstimateQuestion(const RoundRuntime& round, int q,
                                  double confidence) {
  const RoundPlan& plan = round.plan();
  const PlannedQuestion& planned = plan.questions()[q];
  QuestionEstimate result{
      .question_id = planned.question_id,
      .estimate = round.Estimate(q, confidence),
      .epsilon_nanos = planned.task->epsilon_nanos,
      .implemented_epsilon = planned.mechanism->implemented_epsilon(),
      .mechanism = MechanismName(plan.decisions().questions[q]),
      .question = round.task(q)};
  AddSamplingVariance(plan, q, result.estimate);
  if (const auto* strategy = std::get_if<StrategyDecision>(
          &plan.decisions().questions[q].randomizer)) {
    result.strategy = *strategy;
    result.workload_estimator = planned.workload.estimator;
  }
  auto* histogram = std::get_if<HistogramEstimate>(&result.estimate);
  if (histogram == nullptr) return result;
  result.item_intervals.reserve(histogram->frequencies.size());
  for (size_t v = 0; v < histogram->frequencies.size(); ++v) {
    result.item_intervals.push_back(
        NormalInterval(histogram->frequencies[v],
                       std::sqrt(histogram->variances[v]), confidence));
  }
  result.post_processing = planned.post_processing;
  if (planned.post_processing == ConsistencyMethod::kSimplexProjection) {
    result.post_processed = ProjectOntoSimplex(histogram->frequencies);
  } else if (planned.post_processing == ConsistencyMethod::kClipAndNormalize) {
    result.post_processed = ClipAndNormalize(histogram->frequencies);
  }
  return result;
}

StudyInfo InfoOf(const StudyRuntime& study) {
  StudyInfo info{.study_id = study.study_id,
                 .spec = study.spec,
                 .state = study.state.load(),
                 .create_time = study.created_at,
                 .num_agents = study.num_agents.load(),
                 .num_reports = study.num_reports.load(),
                 .max_spent_nanos = study.max_spent_nanos.load()};
  for (const auto& round : study.Rounds()) {
    info.rounds.push_back(MakeRoundInfo(*round));
  }
  if (study.program != nullptr) {
    info.program_result = study.Result(&info.program_done);
  }
  return info;
}

}  // namespace

absl::StatusOr<std::shared_ptr<StudyRuntime>> Aggregator::Impl::NewStudy(
    StudySpec spec, std::string request_id) {
  const absl::Time now = context_.clock().Now();
  if (now >= spec.deadline) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the study's deadline (", absl::FormatTime(spec.deadline),
        ") has passed: no round may start after it; set a later deadline "
        "or none"));
  }
  auto study = std::make_shared<StudyRuntime>();
  study->spec = std::make_shared<const StudySpec>(std::move(spec));
  ASSIGN_OR_RETURN(RoundPlan plan, FirstRound(*study));
  ASSIGN_OR_RETURN(const uint64_t round_id, studies_.NextRoundId());
  ASSIGN_OR_RETURN(study->study_id, studies_.NextStudyId());
  study->request_id = std::move(request_id);
  study->created_at = now;
  const RoundRow row{
      .round_id = round_id,
      .study_id = study->study_id,
      .state = RoundState::kOpen,
      .start_time = study->created_at,
      .deadline = study->created_at + study->spec->round_duration};
  study->AddRound(
      std::make_shared<RoundRuntime>(row, study->spec, std::move(plan)));
  return study;
}

absl::StatusOr<RoundPlan> Aggregator::Impl::FirstRound(StudyRuntime& study) {
  const StudySpec& spec = *study.spec;
  if (spec.mode == StudyMode::kInteractive) {
    return programs_.PlanFirstRound(study);
  }
  if (spec.program.has_value()) {
    return absl::InvalidArgumentError(
        "a NONINTERACTIVE study cannot name an analyst program; make it "
        "INTERACTIVE or drop the program");
  }
  return RoundPlan::Create(spec, options_.strategy_planner);
}

absl::StatusOr<RoundInfo> Aggregator::Impl::AdvanceStudy(uint64_t study_id) {
  RETURN_IF_ERROR(follower_.CatchUp(/*with_ledger=*/false));
  lifecycle_.CloseExpiredRounds();
  std::shared_ptr<StudyRuntime> study = studies_.FindStudy(study_id);
  if (study == nullptr) {
    return absl::NotFoundError(absl::StrCat("no study ", study_id));
  }
  if (study->program == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", study_id, " is NONINTERACTIVE: it has exactly one round"));
  }
  if (study->state.load() != StudyState::kActive) {
    return absl::FailedPreconditionError(absl::StrCat(
        "study ", study_id,
        " is finished: its analyst program is done; read its result with "
        "GetStudy"));
  }
  const std::shared_ptr<RoundRuntime> latest = study->LatestRound();
  if (latest->state() == RoundState::kOpen && latest->ClaimClose()) {
    lifecycle_.QueueClose({.round = latest, .study = study},
                          RoundState::kClosedEarly);
  }
  lifecycle_.Barrier();
  const std::shared_ptr<RoundRuntime> now_latest = study->LatestRound();
  if (now_latest == latest && study->state.load() == StudyState::kActive) {
    return absl::UnavailableError(
        "the next round could not be stored; retry StartRound");
  }
  // The next round, or the closed last one when the program is done.
  return MakeRoundInfo(*now_latest);
}

absl::StatusOr<StudyInfo> Aggregator::Impl::CreateStudy(
    StudySpec spec, std::string request_id) {
  if (spec.shuffle.has_value() && !store_->keeps_shuffled_reports()) {
    return absl::FailedPreconditionError(
        "this server's store does not keep shuffled reports (PostgreSQL); "
        "run shuffled studies on the SQLite store");
  }
  if (!request_id.empty()) {
    const uint64_t existing = studies_.StudyForRequest(request_id);
    if (existing != 0) return GetStudy(existing);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<StudyRuntime> study,
                   NewStudy(std::move(spec), std::move(request_id)));
  RoundRow row = RoundRowOf(*study->LatestRound());
  absl::StatusOr<uint64_t> result;
  absl::Notification done;
  lanes_->catalog().Submit(std::make_unique<CreateStudyJob>(
      context_, studies_, std::move(study), std::move(row), &result, &done));
  done.WaitForNotification();
  if (!result.ok()) return result.status();
  return GetStudy(*result);
}

absl::StatusOr<StudyInfo> Aggregator::Impl::GetStudy(uint64_t study_id) {
  RETURN_IF_ERROR(follower_.CatchUp(/*with_ledger=*/true));
  lifecycle_.CloseExpiredRounds();
  std::shared_ptr<StudyRuntime> study = studies_.FindStudy(study_id);
  if (study == nullptr) {
    return absl::NotFoundError(absl::StrCat("no study ", study_id));
  }
  return InfoOf(*study);
}

StudyPage Aggregator::Impl::ListStudies(int page_size, uint64_t page_start) {
  // A page from this server's memory is still right if catching up fails.
  (void)follower_.CatchUp(/*with_ledger=*/true);
  lifecycle_.CloseExpiredRounds();
  const size_t limit =
      page_size <= 0 ? kDefaultPageSize : std::min(page_size, kMaxPageSize);
  StudyPage page;
  for (const auto& study :
       studies_.Page(limit, page_start, page.next_page_start)) {
    page.studies.push_back(InfoOf(*study));
  }
  return page;
}

absl::StatusOr<RoundEstimates> Aggregator::Impl::GetEstimates(
    uint64_t study_id, uint64_t round_id) {
  RETURN_IF_ERROR(follower_.CatchUp(/*with_ledger=*/false));
  lifecycle_.CloseExpiredRounds();
  std::shared_ptr<StudyRuntime> study = studies_.FindStudy(study_id);
  if (study == nullptr) {
    return absl::NotFoundError(absl::StrCat("no study ", study_id));
  }
  std::shared_ptr<RoundRuntime> round;
  for (const auto& candidate : study->Rounds()) {
    if (round_id == 0 || candidate->round_id() == round_id) round = candidate;
  }
  if (round == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("study ", study_id, " has no round ", round_id));
  }
  const double confidence = study->spec->confidence;
  RoundEstimates result{.study_id = study_id,
                        .round_id = round->round_id(),
                        .state = round->state(),
                        .confidence = confidence};
  for (int q = 0; q < round->num_questions(); ++q) {
    result.questions.push_back(EstimateQuestion(*round, q, confidence));
    if (study->spec->shuffle.has_value()) {
      result.questions.back().shuffled =
          ShuffledGuaranteeOf(*round, q, *study->spec->shuffle);
    }
  }
  return result;
}

// ---- The facade --------------------------------------------------------

absl::StatusOr<RoundInfo> Aggregator::AdvanceStudy(uint64_t study_id) {
  return impl_->AdvanceStudy(study_id);
}

absl::StatusOr<std::unique_ptr<Aggregator>> Aggregator::Create(
    const AggregatorOptions& options, std::unique_ptr<Store> store) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (store == nullptr) return absl::InvalidArgumentError("store is null");
  ASSIGN_OR_RETURN(std::unique_ptr<SecureRandom> random,
                   SecureRandom::Create());
  auto impl =
      std::make_unique<Impl>(options, std::move(store), std::move(random));
  RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<Aggregator>(new Aggregator(std::move(impl)));
}

Aggregator::Aggregator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Aggregator::~Aggregator() = default;

absl::StatusOr<Enrollment> Aggregator::Enroll(std::string_view enrollment_token,
                                              const EnrollRetry& retry) {
  absl::StatusOr<Enrollment> result;
  absl::Notification done;
  impl_->agents().EnrollAsync(enrollment_token, retry,
                              [&](absl::StatusOr<Enrollment> enrollment) {
                                result = std::move(enrollment);
                                done.Notify();
                              });
  done.WaitForNotification();
  return result;
}

void Aggregator::EnrollAsync(
    std::string_view enrollment_token, const EnrollRetry& retry,
    absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
  impl_->agents().EnrollAsync(enrollment_token, retry, std::move(done));
}

int Aggregator::max_reports_per_call() const {
  return impl_->context().options.max_reports_per_call;
}

void Aggregator::EnrollManyAsync(
    std::string_view token, int count, const EnrollRetry& retry,
    absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&> done) {
  impl_->agents().EnrollManyAsync(token, count, retry, std::move(done));
}

absl::StatusOr<uint64_t> Aggregator::AuthenticateAgent(
    std::string_view bearer_token) const {
  return impl_->agents().Authenticate(bearer_token);
}

absl::StatusOr<std::vector<TaskAssignment>> Aggregator::GetTasks(
    uint64_t agent_id, int max_tasks) {
  return impl_->ingest().GetTasks(agent_id, max_tasks);
}

std::vector<absl::StatusOr<std::vector<TaskAssignment>>>
Aggregator::GetTasksMany(absl::Span<const TaskPoll> polls) {
  const ReportIngest& ingest = impl_->ingest();
  const std::vector<ReportIngest::OpenRound> open =
      ingest.OpenRoundsAt(impl_->context().clock().Now());
  std::vector<absl::StatusOr<std::vector<TaskAssignment>>> answers;
  answers.reserve(polls.size());
  for (const TaskPoll& poll : polls) {
    answers.push_back(ingest.GetTasks(poll.agent_id, poll.max_tasks, open));
  }
  return answers;
}

std::vector<absl::Status> Aggregator::UploadReports(
    uint64_t agent_id, std::vector<TaskReport> reports) {
  std::vector<absl::Status> result;
  absl::Notification done;
  impl_->ingest().UploadAsync(agent_id, std::move(reports),
                              [&](std::vector<absl::Status> statuses) {
                                result = std::move(statuses);
                                done.Notify();
                              });
  done.WaitForNotification();
  return result;
}

void Aggregator::UploadReportsAsync(
    uint64_t agent_id, std::vector<TaskReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  impl_->ingest().UploadAsync(agent_id, std::move(reports), std::move(done));
}

void Aggregator::UploadAgentReportsAsync(
    std::vector<AgentReport> reports,
    absl::AnyInvocable<void(std::vector<absl::Status>) &&> done) {
  impl_->ingest().UploadAsync(std::move(reports), std::move(done));
}

absl::StatusOr<TaskAssignment> Aggregator::ShuffledQuestion(
    uint64_t study_id, uint64_t round_id, uint32_t question) const {
  return impl_->shuffled().ShuffledQuestion(study_id, round_id, question);
}

void Aggregator::DeliverShuffledBatchAsync(
    ShuffledBatch batch,
    absl::AnyInvocable<void(absl::StatusOr<ShuffledBatchOutcome>) &&> done) {
  impl_->shuffled().DeliverAsync(std::move(batch), std::move(done));
}

absl::StatusOr<ShuffledBatchOutcome> Aggregator::DeliverShuffledBatch(
    ShuffledBatch batch) {
  absl::StatusOr<ShuffledBatchOutcome> result;
  absl::Notification done;
  impl_->shuffled().DeliverAsync(
      std::move(batch), [&](absl::StatusOr<ShuffledBatchOutcome> outcome) {
        result = std::move(outcome);
        done.Notify();
      });
  done.WaitForNotification();
  return result;
}

absl::StatusOr<std::vector<LedgerEntry>> Aggregator::GetBudget(
    uint64_t agent_id, uint64_t study_id) {
  return impl_->agents().GetBudget(agent_id, study_id);
}

absl::Status Aggregator::AuthenticateAnalyst(std::string_view token) const {
  return impl_->AuthenticateAnalyst(token);
}

absl::StatusOr<StudyInfo> Aggregator::CreateStudy(StudySpec spec,
                                                  std::string request_id) {
  return impl_->CreateStudy(std::move(spec), std::move(request_id));
}

absl::StatusOr<StudyInfo> Aggregator::GetStudy(uint64_t study_id) {
  return impl_->GetStudy(study_id);
}

StudyPage Aggregator::ListStudies(int page_size, uint64_t page_start) {
  return impl_->ListStudies(page_size, page_start);
}

absl::StatusOr<RoundEstimates> Aggregator::GetEstimates(uint64_t study_id,
                                                        uint64_t round_id) {
  return impl_->GetEstimates(study_id, round_id);
}

void Aggregator::CloseExpiredRounds() { impl_->rounds().CloseExpiredRounds(); }

CommitQueueStats Aggregator::commit_stats() const {
  return impl_->lanes().stats();
}

AggregatorStats Aggregator::Stats() const { return impl_->Stats(); }

AggregatorStats Aggregator::Impl::Stats() const {
  AggregatorStats out{.counters = stats_.Read(),
                      .agents_enrolled = agents_.size(),
                      .commits = lanes_->stats(),
                      .queued_writes = lanes_->queued_writes()};
  for (const auto& study : studies_.AllStudies()) {
    ++(study->state.load() == StudyState::kActive ? out.studies_active
                                                  : out.studies_closed);
    out.reports_stored += study->num_reports.load(std::memory_order_relaxed);
    for (const auto& round : study->Rounds()) {
      ++(round->state() == RoundState::kOpen ? out.rounds_open
                                             : out.rounds_closed);
    }
  }
  return out;
}

}  // namespace ldp
