// Durability against a real ldp-server: SIGKILL it mid-round while agents
// are uploading, restart it on the same database, and let the agents finish
// (they resend their unacknowledged reports byte for byte). Every
// acknowledged report is counted exactly once, nothing is lost, and the
// estimate is what a crash-free run would give: within 5 standard errors of
// the truth, from exactly one report per agent.
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "common/mechanisms/real/real_mechanism_factory.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/devices.h"
#include "tests/integration/mean_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

v1::StudySpec Spec() { return MeanStudySpec("crash", 10, "piecewise"); }

TEST(CrashRecovery, SigkillMidRoundLosesNothingAndCountsOnce) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(Spec());
  ASSERT_OK(study);

  constexpr int kAgents = 2000;
  std::vector<Device> devices(kAgents);
  double truth = 0;
  for (int i = 0; i < kAgents; ++i) {
    const double x = 10.0 * ((i * 7) % kAgents) / kAgents;
    truth += x / kAgents;
    Record record;
    record.values["x"] = x;
    devices[i].gen = std::make_unique<std::mt19937_64>(i + 1);
    auto agent = Agent::Create(
        {.record = record, .max_epsilon_per_study_nanos = 1'000'000'000},
        std::make_unique<MemoryAgentStateStore>(), *devices[i].gen);
    ASSERT_OK(agent);
    devices[i].agent = *std::move(agent);
  }

  // Four workers upload; the server is killed under them once a quarter of
  // the reports are acknowledged (progress, not time, so it is never early
  // or late on a slower or faster machine).
  std::atomic<int> progress{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      RunDevices(server, devices, t * kAgents / 4, (t + 1) * kAgents / 4,
                 &progress);
    });
  }
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (progress < kAgents / 4 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server.Kill();
  for (auto& w : workers) w.join();
  int acked_before_crash = 0;
  for (const auto& d : devices) acked_before_crash += d.accepted;
  ASSERT_GT(acked_before_crash, 0) << "the crash came before any report";
  ASSERT_LT(acked_before_crash, kAgents) << "the crash came after every report";

  // Restart on the same database and let every agent finish its round.
  ASSERT_OK(server.Start());
  AnalystClient restarted(server);
  RunDevices(server, devices, 0, kAgents);
  int acked = 0;
  for (const auto& d : devices) {
    EXPECT_LE(d.accepted, 1);
    acked += d.accepted;
  }
  EXPECT_EQ(acked, kAgents);

  auto after = restarted.GetStudy(study->study_id());
  ASSERT_OK(after);
  EXPECT_EQ(after->status().num_reports(), static_cast<uint64_t>(kAgents));
  auto estimates = restarted.GetEstimates(study->study_id());
  ASSERT_OK(estimates);
  const auto& scalar = estimates->estimates(0).scalar();
  EXPECT_EQ(scalar.num_reports(), kAgents);
  EXPECT_NEAR(scalar.value(), truth, 5 * scalar.standard_error());
  // A crash-free run's standard error is √((mean per-report variance +
  // population variance) / n) with n = kAgents; the reported one estimates
  // it with a relative error of a few percent, so 10% is a wide margin.
  auto mechanism = CreateRealMechanism(
      {.kind = RealMechanismKind::kPiecewise, .epsilon = 1, .bound = 5});
  ASSERT_OK(mechanism);
  double per_report = 0, spread = 0;
  for (int i = 0; i < kAgents; ++i) {
    const double x = 10.0 * ((i * 7) % kAgents) / kAgents;
    per_report += (*mechanism)->Variance(x - 5) / kAgents;
    spread += (x - truth) * (x - truth) / kAgents;
  }
  const double expected_se = std::sqrt((per_report + spread) / kAgents);
  EXPECT_NEAR(scalar.standard_error(), expected_se, 0.1 * expected_se);
}

}  // namespace
}  // namespace ldp::testing
