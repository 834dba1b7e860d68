// PlanStrategy (strategy_planner.h): builds every strategy that fits the
// workload, scores each by its predicted worst-case per-user variance, and
// keeps the smallest; the two optimized strategies are cached on disk.
//
// Candidate order matters: on a tie the earlier (simpler, cheaper to run)
// strategy wins, e.g. for a histogram the identity beats a one-level tree
// with the same variance.
//
// The cache is best-effort: a file is named by the SHA-256 of everything
// that determines its content, carries that digest and a checksum of its own
// bytes, and is written to a temporary name and renamed, so a reader sees
// either a whole file or none. A missing, corrupt or mismatching file is
// recomputed; a failed write only loses the cache.
#include "common/workload/strategies/strategy_planner.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/base/file_text.h"
#include "common/crypto/sha256.h"
#include "common/workload/strategies/gamma2_factorization.h"
#include "common/workload/strategies/matrix_optimizer.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload_estimator.h"

namespace ldp {
namespace {

// Two candidates whose worst-case variances (VarianceSummary::worst) differ
// by less than this (relative) tie; the
// same strategy reached by two routes differs only by rounding.
constexpr double kTieTolerance = 1e-7;
// Within this (relative) of the best worst case, the smaller average
// variance wins: analysts see typical data far more often than the worst
// point mass. A histogram at ε = 1: the optimized Q's worst case is 2%
// below OUE's (4.58 vs 4.68) but its average 3% above (3.79 vs 3.68).
constexpr double kNearTieTolerance = 0.03;

// ---------------------------------------------------------------------------
// The on-disk cache.

constexpr char kCacheMagic[8] = {'L', 'D', 'P', 'S', 'C', '0', '0', '1'};
constexpr size_t kDigestSize = kSha256Bytes;
using Digest = Sha256Digest;

// A failed digest (OpenSSL out of memory) reads as all zeros: the cache then
// misses, which costs a recomputation and never a wrong strategy.
Digest Sha256(std::string_view bytes) {
  return Sha256Of(bytes).value_or(Digest{});
}

// Little helpers for a flat, host-endian byte buffer (the cache is a local
// file, never exchanged between machines).
template <typename T>
void Put(std::string& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void PutString(std::string& out, std::string_view s) {
  Put<uint64_t>(out, s.size());
  out.append(s.data(), s.size());
}

void PutMatrix(std::string& out, const Eigen::MatrixXd& m) {
  Put<uint32_t>(out, static_cast<uint32_t>(m.rows()));
  Put<uint32_t>(out, static_cast<uint32_t>(m.cols()));
  out.append(reinterpret_cast<const char*>(m.data()),
             sizeof(double) * static_cast<size_t>(m.size()));
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool Get(T& value) {
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  // A matrix with `cols` columns and finite entries.
  bool GetMatrix(uint32_t cols, Eigen::MatrixXd& m) {
    uint32_t r = 0, c = 0;
    if (!Get(r) || !Get(c) || c != cols || r == 0) return false;
    const uint64_t size = uint64_t{r} * c * sizeof(double);
    if (bytes_.size() - pos_ < size) return false;
    m.resize(r, c);
    std::memcpy(m.data(), bytes_.data() + pos_, size);
    pos_ += size;
    return m.allFinite();
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

// Everything that determines an optimized strategy: the tag names what is
// cached, then the workload's matrix (labels do not matter), then `extra`
// (ε and the optimizer's options).
Digest CacheKey(std::string_view tag, const Workload& workload,
                const std::string& extra) {
  const WorkloadSpec& spec = workload.spec();
  std::string key;
  PutString(key, "ldp strategy cache v1");
  PutString(key, tag);
  Put<int32_t>(key, static_cast<int32_t>(spec.kind));
  Put<uint32_t>(key, workload.domain_size());
  Put<uint32_t>(key, spec.num_bits);
  Put<uint32_t>(key, spec.order);
  Put<uint64_t>(key, workload.num_queries());
  Put<uint64_t>(key, spec.dense.size());
  for (double v : spec.dense) Put<double>(key, v);
  Put<uint64_t>(key, spec.sparse.size());
  for (const SparseEntry& e : spec.sparse) {
    Put<uint32_t>(key, e.row);
    Put<uint32_t>(key, e.column);
    Put<double>(key, e.value);
  }
  PutString(key, extra);
  return Sha256(key);
}

std::filesystem::path CachePath(const std::string& dir, const Digest& key) {
  return std::filesystem::path(dir) / (DigestHex(key) + ".bin");
}

// The payload if the file exists, is whole, and was written for `key`.
std::optional<std::string> ReadCache(const std::string& dir,
                                     const Digest& key) {
  absl::StatusOr<std::string> read =
      ReadFileText(CachePath(dir, key).string(), "strategy cache");
  if (!read.ok()) return std::nullopt;
  const std::string& bytes = *read;
  const size_t header = sizeof(kCacheMagic) + kDigestSize;
  if (bytes.size() < header + kDigestSize) return std::nullopt;
  const std::string body = bytes.substr(0, bytes.size() - kDigestSize);
  const Digest checksum = Sha256(body);
  if (std::memcmp(checksum.data(), bytes.data() + body.size(), kDigestSize) !=
          0 ||
      std::memcmp(bytes.data(), kCacheMagic, sizeof(kCacheMagic)) != 0 ||
      std::memcmp(bytes.data() + sizeof(kCacheMagic), key.data(),
                  kDigestSize) != 0) {
    return std::nullopt;
  }
  return body.substr(header);
}

void WriteCache(const std::string& dir, const Digest& key,
                const std::string& payload) {
  static std::atomic<uint64_t> counter{0};
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return;
  std::string bytes(kCacheMagic, sizeof(kCacheMagic));
  bytes.append(reinterpret_cast<const char*>(key.data()), kDigestSize);
  bytes += payload;
  const Digest checksum = Sha256(bytes);
  bytes.append(reinterpret_cast<const char*>(checksum.data()), kDigestSize);

  const std::filesystem::path path = CachePath(dir, key);
  std::filesystem::path tmp = path;
  tmp += absl::StrCat(".tmp.", getpid(), ".", counter.fetch_add(1));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, error);
      return;
    }
  }
  std::filesystem::rename(tmp, path, error);
  if (error) std::filesystem::remove(tmp, error);
}

// ---------------------------------------------------------------------------
// The two optimized strategies, through the cache.

Gamma2Options PlannerGamma2Options(const StrategyPlannerOptions& options) {
  Gamma2Options g;
  g.time_limit = options.optimizer_time_limit;
  return g;
}

// γ₂ does not depend on ε, so one factorization serves every ε.
absl::StatusOr<Gamma2Factorization> CachedGamma2(
    const Workload& workload, const StrategyPlannerOptions& options) {
  const Gamma2Options g = PlannerGamma2Options(options);
  std::string extra;
  Put<double>(extra, g.relative_gap);
  Put<int32_t>(extra, g.max_iterations);
  Put<double>(extra, g.eta);
  Put<int64_t>(extra, absl::ToInt64Nanoseconds(g.time_limit));
  const Digest key = CacheKey("gamma2", workload, extra);
  if (!options.cache_dir.empty()) {
    if (std::optional<std::string> payload =
            ReadCache(options.cache_dir, key)) {
      Reader reader(*payload);
      Gamma2Factorization f;
      int32_t iterations = 0;
      if (reader.Get(f.lower_bound) && reader.Get(f.upper_bound) &&
          reader.Get(iterations) &&
          reader.GetMatrix(workload.domain_size(), f.strategy) &&
          reader.AtEnd() && std::isfinite(f.lower_bound) &&
          std::isfinite(f.upper_bound)) {
        f.iterations = iterations;
        return f;
      }
    }
  }
  absl::StatusOr<Gamma2Factorization> f = FactorizeGamma2(workload, g);
  if (f.ok() && !options.cache_dir.empty()) {
    std::string payload;
    Put<double>(payload, f->lower_bound);
    Put<double>(payload, f->upper_bound);
    Put<int32_t>(payload, f->iterations);
    PutMatrix(payload, f->strategy);
    WriteCache(options.cache_dir, key, payload);
  }
  return f;
}

MatrixOptimizerOptions PlannerMatrixOptions(
    const StrategyPlannerOptions& options) {
  MatrixOptimizerOptions m;
  m.time_limit = options.optimizer_time_limit;
  return m;
}

absl::StatusOr<OptimizedMatrix> CachedMatrix(
    const Workload& workload, double epsilon,
    const StrategyPlannerOptions& options) {
  const MatrixOptimizerOptions m = PlannerMatrixOptions(options);
  std::string extra;
  Put<double>(extra, epsilon);
  Put<uint32_t>(extra, m.num_outputs);
  Put<int32_t>(extra, m.iterations);
  Put<uint64_t>(extra, m.seed);
  Put<int64_t>(extra, absl::ToInt64Nanoseconds(m.time_limit));
  const Digest key = CacheKey("matrix", workload, extra);
  if (!options.cache_dir.empty()) {
    if (std::optional<std::string> payload =
            ReadCache(options.cache_dir, key)) {
      Reader reader(*payload);
      OptimizedMatrix q;
      int32_t iterations = 0;
      if (reader.Get(q.objective) && reader.Get(iterations) &&
          reader.GetMatrix(workload.domain_size(), q.q) && reader.AtEnd() &&
          std::isfinite(q.objective)) {
        q.iterations = iterations;
        return q;
      }
    }
  }
  absl::StatusOr<OptimizedMatrix> q =
      OptimizeStrategyMatrix(workload, epsilon, m);
  if (q.ok() && !options.cache_dir.empty()) {
    std::string payload;
    Put<double>(payload, q->objective);
    Put<int32_t>(payload, q->iterations);
    PutMatrix(payload, q->q);
    WriteCache(options.cache_dir, key, payload);
  }
  return q;
}

// ---------------------------------------------------------------------------
// Candidates.

double Binomial(uint32_t n, uint32_t k) {
  double r = 1;
  for (uint32_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

struct Scored {
  StrategyCandidate candidate;
  std::shared_ptr<const WorkloadEstimator> estimator;
};

// Builds and scores one candidate; nullopt when the strategy cannot be
// built or cannot answer the workload (e.g. a row space missing W). `note`
// is appended to the strategy's own description where it alone would not
// tell two candidates apart.
std::optional<Scored> Score(const Workload& workload, StrategySpec spec,
                            const std::string& note = "",
                            double gamma2_lower = 0, double gamma2_upper = 0) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> mechanism =
      CreateStrategy(spec);
  if (!mechanism.ok()) return std::nullopt;
  std::shared_ptr<const StrategyMechanism> shared = *std::move(mechanism);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(workload, shared);
  if (!estimator.ok()) return std::nullopt;
  Scored scored;
  scored.candidate.description = absl::StrCat(shared->Describe(), note);
  scored.candidate.variance = (*estimator)->Variance();
  scored.candidate.spec = std::move(spec);
  scored.candidate.gamma2_lower = gamma2_lower;
  scored.candidate.gamma2_upper = gamma2_upper;
  scored.estimator = *std::move(estimator);
  return scored;
}

bool FitsWire(uint64_t rows, uint32_t n) {
  return rows * n <= kMaxStrategyMatrixEntries;
}

// Candidates in the order they are tried: on a tie the earlier one wins.
using Candidates = std::vector<Scored>;

void Add(Candidates& scored, std::optional<Scored> s) {
  if (s.has_value()) scored.push_back(*std::move(s));
}

// The fixed structured strategies every workload can try: the identity,
// hierarchical trees with branching 2 to 16 (no wider than the domain), and
// the Haar wavelet.
void AddStructuredCandidates(const Workload& workload, const StrategySpec& base,
                             Candidates& scored) {
  const uint32_t n = workload.domain_size();
  StrategySpec identity = base;
  identity.kind = StrategyKind::kIdentity;
  Add(scored, Score(workload, identity));

  for (uint32_t b : {2u, 4u, 8u, 16u}) {
    if (b > n) break;
    StrategySpec tree = base;
    tree.kind = StrategyKind::kHierarchical;
    tree.branching = b;
    Add(scored, Score(workload, tree));
  }

  StrategySpec haar = base;
  haar.kind = StrategyKind::kHaar;
  Add(scored, Score(workload, haar));
}

// Fourier strategies for marginal and parity workloads over d bits: the
// γ₂-optimal level weights (marginals only), then uniform over parities.
void AddFourierCandidates(const Workload& workload, const StrategySpec& base,
                          Candidates& scored) {
  const WorkloadKind kind = workload.kind();
  if (kind != WorkloadKind::kMarginals && kind != WorkloadKind::kParities) {
    return;
  }
  const uint32_t d = workload.spec().num_bits, k = workload.spec().order;
  StrategySpec fourier = base;
  fourier.kind = StrategyKind::kFourier;
  fourier.num_bits = d;
  fourier.order = k;
  // Uniform over the parities of weight ≤ k: level i gets C(d, i).
  std::vector<double> uniform;
  for (uint32_t i = 1; i <= k; ++i) uniform.push_back(Binomial(d, i));
  if (kind == WorkloadKind::kMarginals) {
    // γ₂-optimal for k-way marginals (reference §4): level i sampled
    // ∝ sqrt(C(k,i)·C(d,i)).
    for (uint32_t i = 1; i <= k; ++i) {
      fourier.level_weights.push_back(
          std::sqrt(Binomial(k, i) * Binomial(d, i)));
    }
    Add(scored, Score(workload, fourier, ", γ₂-optimal level weights"));
  }
  fourier.level_weights = uniform;
  Add(scored, Score(workload, fourier, ", uniform over parities"));
}

}  // namespace

std::vector<uint32_t> WorkloadAttributeSizes(const Workload& workload) {
  if (workload.kind() == WorkloadKind::kAttributeMarginals) {
    return workload.spec().attribute_sizes;
  }
  if (workload.kind() == WorkloadKind::kMarginals &&
      workload.spec().order == 1) {
    return std::vector<uint32_t>(workload.spec().num_bits, 2);
  }
  return {};
}

namespace {

// Attribute sampling (SMP) and random sampling plus fake data (RS+FD, with
// GRR, zero-vector or one-hot unary fakes) for 1-way marginals. At the same
// ε RS+FD never beats SMP, whose report it is with the attribute hidden; its
// forms are scored so that analysts see by how much, and so that an analyst
// who asks for RS+FD gets its most accurate form (fake_data_randomizer.h
// says why its ε is not the paper's smaller one).
void AddAttributeCandidates(const Workload& workload, const StrategySpec& base,
                            Candidates& scored) {
  const std::vector<uint32_t> sizes = WorkloadAttributeSizes(workload);
  if (sizes.empty()) return;
  for (StrategyKind kind :
       {StrategyKind::kAttributeSampling, StrategyKind::kRandomSamplingFakeData,
        StrategyKind::kFakeDataUnaryZero, StrategyKind::kFakeDataUnaryRandom}) {
    StrategySpec spec = base;
    spec.kind = kind;
    spec.attribute_sizes = sizes;
    Add(scored, Score(workload, spec));
  }
}

// Optimized strategies carry their matrix. A task carries at most
// kMaxStrategyMatrixEntries; in process (benchmarks, `ldp plan`) the
// factory takes up to kMaxInProcessStrategyMatrixEntries. With
// `wire_sized_only`, an optimizer whose smallest possible result could not
// fit a task is not run at all: a factorization has rank ≤ min(m, N), a
// matrix K = 4N rows (or the configured K) before near-empty rows are
// dropped.
void AddOptimizedCandidates(const Workload& workload, double epsilon,
                            const StrategyPlannerOptions& options,
                            Candidates& scored) {
  const uint32_t n = workload.domain_size();
  const bool sized = options.wire_sized_only;
  const uint64_t max_rank = std::min<uint64_t>(workload.num_queries(), n);
  if (options.include_factorization && (!sized || FitsWire(max_rank, n))) {
    absl::StatusOr<Gamma2Factorization> f = CachedGamma2(workload, options);
    if (f.ok() && (!sized || FitsWire(f->strategy.rows(), n))) {
      StrategySpec spec = MatrixStrategySpec(StrategyKind::kFactorization,
                                             epsilon, f->strategy);
      const std::string note =
          absl::StrCat(", γ₂ ∈ [", f->lower_bound, ", ", f->upper_bound, "]");
      Add(scored, Score(workload, std::move(spec), note, f->lower_bound,
                        f->upper_bound));
    }
  }

  const MatrixOptimizerOptions matrix_options = PlannerMatrixOptions(options);
  const uint64_t outputs =
      matrix_options.num_outputs == 0 ? 4ull * n : matrix_options.num_outputs;
  if (options.include_optimized_matrix && (!sized || FitsWire(outputs, n))) {
    absl::StatusOr<OptimizedMatrix> q =
        CachedMatrix(workload, epsilon, options);
    if (q.ok() && (!sized || FitsWire(q->q.rows(), n))) {
      StrategySpec spec =
          MatrixStrategySpec(StrategyKind::kMatrix, epsilon, q->q);
      Add(scored, Score(workload, std::move(spec)));
    }
  }
}

// Among the candidates within the near-tie tolerance of the smallest
// worst case, the smallest v_avg; exact ties go to the first (simplest).
// Never worse in the worst case than the best fixed (structured)
// strategy, which is what the plan is measured against. `scored` is not
// empty.
size_t ChooseCandidate(const Candidates& scored) {
  double best = scored.front().candidate.variance.worst();
  double best_fixed = std::numeric_limits<double>::infinity();
  for (const Scored& s : scored) {
    best = std::min(best, s.candidate.variance.worst());
    if (s.candidate.spec.kind != StrategyKind::kMatrix &&
        s.candidate.spec.kind != StrategyKind::kFactorization) {
      best_fixed = std::min(best_fixed, s.candidate.variance.worst());
    }
  }
  const double eligible = std::min(best * (1 + kNearTieTolerance),
                                   best_fixed * (1 + kTieTolerance));
  std::optional<size_t> chosen_index;
  for (size_t i = 0; i < scored.size(); ++i) {
    const VarianceSummary& v = scored[i].candidate.variance;
    if (v.worst() > eligible) continue;
    if (!chosen_index.has_value() ||
        v.v_avg < scored[*chosen_index].candidate.variance.v_avg *
                      (1 - kTieTolerance)) {
      chosen_index = i;
    }
  }
  return *chosen_index;
}

// The plan: the chosen candidate, then every candidate best first, the
// chosen one leading its tie group.
StrategyPlan MakePlan(const Candidates& scored, size_t chosen) {
  StrategyPlan plan;
  plan.chosen = scored[chosen].candidate;
  plan.estimator = scored[chosen].estimator;
  std::vector<size_t> order(scored.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return scored[a].candidate.variance.worst() <
           scored[b].candidate.variance.worst();
  });
  std::rotate(order.begin(), std::find(order.begin(), order.end(), chosen),
              std::find(order.begin(), order.end(), chosen) + 1);
  for (size_t i : order) plan.candidates.push_back(scored[i].candidate);
  return plan;
}

}  // namespace

absl::StatusOr<StrategyPlan> PlanStrategy(
    const Workload& workload, double epsilon,
    const StrategyPlannerOptions& options) {
  if (!std::isfinite(epsilon) || epsilon <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("epsilon ", epsilon, " must be positive and finite"));
  }
  StrategySpec base;
  base.epsilon = epsilon;
  base.domain_size = workload.domain_size();

  // In order of simplicity: ties go to the earlier one.
  Candidates scored;
  AddStructuredCandidates(workload, base, scored);
  AddFourierCandidates(workload, base, scored);
  AddAttributeCandidates(workload, base, scored);
  AddOptimizedCandidates(workload, epsilon, options, scored);
  if (scored.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("no strategy can answer ",
                                                      workload.Describe(),
                                                      " at epsilon ", epsilon));
  }
  return MakePlan(scored, ChooseCandidate(scored));
}

}  // namespace ldp
