// Marginals questions into histogram questions; see the header.
#include "proto/convert/marginals_expansion.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/tasks/study_spec.h"

namespace ldp {
namespace {

constexpr int kMaxMarginalFields = 64;
constexpr uint32_t kMaxMarginalOrder = 3;

// C(n, k), or more than `cap` once it passes it.
int64_t Subsets(int64_t n, int64_t k, int64_t cap) {
  int64_t c = 1;
  for (int64_t i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;  // exact: a product of i consecutive / i!
    if (c > cap) return cap + 1;
  }
  return c;
}

absl::Status CheckMarginals(const v1::Question& q, int64_t room) {
  const v1::MarginalsQuestion& m = q.marginals();
  const std::string name = absl::StrCat("marginals question \"",
                                        q.question_id().substr(0, 128), "\"");
  if (m.fields().empty() || m.fields_size() > kMaxMarginalFields) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " needs 1 to ", kMaxMarginalFields, " fields, got ",
                     m.fields_size()));
  }
  absl::flat_hash_set<std::string> seen;
  for (const v1::FieldEncoding& f : m.fields()) {
    if (!seen.insert(f.field()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " names field \"", f.field().substr(0, 128), "\" twice"));
    }
  }
  if (m.order() < 1 || m.order() > kMaxMarginalOrder ||
      m.order() > static_cast<uint32_t>(m.fields_size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": order must be 1 to ", kMaxMarginalOrder,
                     " and at most the number of fields (", m.fields_size(),
                     "), got ", m.order()));
  }
  const int64_t count = Subsets(m.fields_size(), m.order(), room);
  if (count > room) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": its ", m.order(), "-way marginals of ", m.fields_size(),
        " fields would pass a round's ", kMaxQuestionsPerRound,
        " questions; ask for fewer fields or a lower order"));
  }
  return absl::OkStatus();
}

// The histogram question of one subset of the fields (indices ascending).
v1::Question Marginal(const v1::Question& q, const std::vector<int>& subset) {
  v1::Question h;
  std::string id = absl::StrCat(q.question_id(), ":");
  v1::ProductEncoding* product =
      h.mutable_histogram()->mutable_encoding()->mutable_product();
  for (size_t i = 0; i < subset.size(); ++i) {
    const v1::FieldEncoding& f = q.marginals().fields(subset[i]);
    *product->add_fields() = f;
    absl::StrAppend(&id, i == 0 ? "" : ",", f.field());
  }
  h.set_question_id(id);
  *h.mutable_randomizer() = q.randomizer();
  h.set_target_reports(q.target_reports());
  return h;
}

void Expand(const v1::Question& q, std::vector<v1::Question>& out) {
  const int d = q.marginals().fields_size();
  const int k = static_cast<int>(q.marginals().order());
  std::vector<int> subset(k);
  for (int i = 0; i < k; ++i) subset[i] = i;
  while (true) {
    out.push_back(Marginal(q, subset));
    int i = k - 1;
    while (i >= 0 && subset[i] == d - k + i) --i;
    if (i < 0) return;
    ++subset[i];
    for (int j = i + 1; j < k; ++j) subset[j] = subset[j - 1] + 1;
  }
}

}  // namespace

absl::StatusOr<std::vector<v1::Question>> ExpandMarginals(
    const google::protobuf::RepeatedPtrField<v1::Question>& questions) {
  std::vector<v1::Question> out;
  for (const v1::Question& q : questions) {
    if (q.kind_case() != v1::Question::kMarginals) {
      out.push_back(q);
      continue;
    }
    const int64_t room =
        kMaxQuestionsPerRound - static_cast<int64_t>(out.size());
    if (absl::Status s = CheckMarginals(q, room); !s.ok()) return s;
    Expand(q, out);
  }
  return out;
}

}  // namespace ldp
