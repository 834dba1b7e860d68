// Canonical encoding + SHA-256 of a task's question; see the header.
#include "common/tasks/task_fingerprint.h"

#include <bit>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

// Appends self-delimiting values: each has a one-byte type tag, integers
// are 8 bytes little-endian, strings carry their length.
class CanonicalWriter {
 public:
  // A schema with its categories and a query tree take a few hundred bytes.
  CanonicalWriter() { out_.reserve(1024); }

  // The tag and 8 bytes in one append (this ran a byte at a time, and the
  // fingerprint was a sixth of the load test's CPU).
  void Int(uint64_t value) {
    char bytes[9] = {'i'};
    for (int i = 0; i < 8; ++i)
      bytes[i + 1] = static_cast<char>(value >> (8 * i));
    out_.append(bytes, sizeof(bytes));
  }
  void Real(double value) {
    out_.push_back('d');
    Int(std::bit_cast<uint64_t>(value));
  }
  void String(absl::string_view value) {
    out_.push_back('s');
    Int(value.size());
    out_.append(value.data(), value.size());
  }
  void Bits(const std::vector<bool>& bits) {
    out_.push_back('b');
    Int(bits.size());
    for (bool bit : bits) out_.push_back(bit ? '1' : '0');
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

void WriteValue(const FieldValue& value, CanonicalWriter& w) {
  w.Int(value.index());
  std::visit(
      [&w](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) w.Int(v);
        if constexpr (std::is_same_v<T, int64_t>)
          w.Int(static_cast<uint64_t>(v));
        if constexpr (std::is_same_v<T, std::string>) w.String(v);
        if constexpr (std::is_same_v<T, double>) w.Real(v);
        if constexpr (std::is_same_v<T, std::vector<bool>>) w.Bits(v);
      },
      value);
}

// Only the fields the question reads, by name: fields it never reads, and
// their order, cannot change its answer.
void WriteSchema(const RecordSchema& schema,
                 const std::set<std::string_view>& read, CanonicalWriter& w) {
  w.Int(read.size());
  for (std::string_view name : read) {
    const FieldSpec* found = schema.Find(name);
    w.Int(found != nullptr);
    if (found == nullptr) continue;
    const FieldSpec& field = *found;
    w.String(field.name);
    w.Int(static_cast<uint64_t>(field.kind));
    w.Int(static_cast<uint64_t>(field.int_lower));
    w.Int(static_cast<uint64_t>(field.int_upper));
    w.Real(field.real_lower);
    w.Real(field.real_upper);
    w.Int(field.categories.size());
    for (const std::string& category : field.categories) w.String(category);
    w.Int(field.bit_length);
    w.Int(field.default_value.has_value());
    if (field.default_value.has_value()) WriteValue(*field.default_value, w);
  }
}

void WriteNode(const QueryNode& node, CanonicalWriter& w) {
  w.Int(static_cast<uint64_t>(node.op));
  w.String(node.field);
  w.Real(node.constant);
  w.String(node.category);
  w.Int(node.bit_index);
  w.Bits(node.mask);
  w.Real(node.range.lower);
  w.Real(node.range.upper);
  w.Int(node.children.size());
  for (const QueryNode& child : node.children) WriteNode(child, w);
}

void CollectFields(const QueryNode& node, std::set<std::string_view>& read) {
  if (!node.field.empty()) read.insert(node.field);
  for (const QueryNode& child : node.children) CollectFields(child, read);
}

void CollectFields(const DomainEncodingSpec& spec,
                   std::set<std::string_view>& read) {
  if (const auto* field = std::get_if<FieldEncoding>(&spec)) {
    read.insert(field->field);
  } else if (const auto* product = std::get_if<ProductEncoding>(&spec)) {
    for (const FieldEncoding& f : product->fields) read.insert(f.field);
  } else if (const auto* prefix = std::get_if<PrefixEncoding>(&spec)) {
    read.insert(prefix->field);
  } else if (const auto* digest = std::get_if<DigestEncoding>(&spec)) {
    read.insert(digest->field);
  } else {
    CollectFields(std::get<QueryValueEncoding>(spec).query.root(), read);
  }
}

// Every field the question reads.
std::set<std::string_view> FieldsRead(const Task& task) {
  std::set<std::string_view> read;
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    CollectFields(sq->query.root(), read);
  } else if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    CollectFields(workload->encoding.spec(), read);
  } else {
    CollectFields(std::get<HistogramTask>(task.question).encoding.spec(), read);
  }
  return read;
}

// The query's own schema too: it reads (and clamps) fields through it.
void WriteQuery(const Query& query, CanonicalWriter& w) {
  std::set<std::string_view> read;
  CollectFields(query.root(), read);
  WriteSchema(query.schema(), read, w);
  WriteNode(query.root(), w);
  w.Real(query.output_range().lower);
  w.Real(query.output_range().upper);
}

void WriteFieldEncoding(const FieldEncoding& field, CanonicalWriter& w) {
  w.String(field.field);
  w.Int(field.num_buckets);
}

void WriteEncoding(const DomainEncodingSpec& spec, CanonicalWriter& w) {
  w.Int(spec.index());
  if (const auto* field = std::get_if<FieldEncoding>(&spec)) {
    WriteFieldEncoding(*field, w);
  } else if (const auto* product = std::get_if<ProductEncoding>(&spec)) {
    w.Int(product->fields.size());
    for (const FieldEncoding& f : product->fields) WriteFieldEncoding(f, w);
  } else if (const auto* prefix = std::get_if<PrefixEncoding>(&spec)) {
    w.String(prefix->field);
    w.Int(prefix->prefix_bits);
    w.Int(prefix->extension_bits);
    w.Int(prefix->candidates.size());
    for (const std::vector<bool>& c : prefix->candidates) w.Bits(c);
  } else if (const auto* digest = std::get_if<DigestEncoding>(&spec)) {
    w.String(digest->field);
    w.Int(digest->seed);
  } else {
    const auto& value = std::get<QueryValueEncoding>(spec);
    WriteQuery(value.query, w);
    w.Int(value.domain_size);
  }
}

void WriteQuestion(const Task& task, CanonicalWriter& w) {
  w.Int(task.question.index());
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    WriteQuery(sq->query, w);
    w.Int(static_cast<uint64_t>(sq->mechanism.kind));
    w.Real(sq->mechanism.epsilon);
    w.Int(static_cast<uint64_t>(sq->mechanism.resolution_bits));
    w.Int(static_cast<uint64_t>(sq->mechanism.num_cells));
    return;
  }
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    // N is the encoding's (TaskMechanism overrides strategy.domain_size).
    WriteEncoding(workload->encoding.spec(), w);
    const StrategySpec& s = workload->strategy;
    w.Int(static_cast<uint64_t>(s.kind));
    w.Real(s.epsilon);
    w.Int(s.branching);
    w.Int(s.num_bits);
    w.Int(s.order);
    w.Int(s.level_weights.size());
    for (double weight : s.level_weights) w.Real(weight);
    w.Int(s.rows);
    w.Int(s.matrix.size());
    for (double a : s.matrix) w.Real(a);
    // Appended last, and only when set, so earlier memos keep their keys.
    if (!s.attribute_sizes.empty()) {
      w.Int(s.attribute_sizes.size());
      for (uint32_t k : s.attribute_sizes) w.Int(k);
    }
    return;
  }
  const auto& histogram = std::get<HistogramTask>(task.question);
  WriteEncoding(histogram.encoding.spec(), w);
  const FrequencyOracleSpec& o = histogram.oracle;
  w.Int(static_cast<uint64_t>(o.kind));
  w.Real(o.epsilon);
  w.Int(o.num_buckets);
  w.Int(o.subset_size);
  w.Int(o.num_hashes);
  w.Int(o.num_columns);
  w.Int(o.hash_seed);
  w.Real(o.epsilon_permanent);
  // Written only for the general Hadamard response, so that every task
  // fingerprinted before it existed keeps its fingerprint (and agents their
  // memos); the typed encoding keeps the two forms apart.
  if (o.rows_per_item > 1) w.Int(o.rows_per_item);
  if (o.sampled_buckets > 0) w.Int(o.sampled_buckets);  // dBitFlipPM only
  if (o.num_cohorts > 0) w.Int(o.num_cohorts);          // RAPPOR only
}

std::string Sha256Hex(const std::string& bytes) {
  // SHA-256 of an in-memory buffer cannot fail short of memory exhaustion;
  // an empty fingerprint would merely disable the memo (never reuse).
  absl::StatusOr<Sha256Digest> digest = Sha256Of(bytes);
  return digest.ok() ? DigestHex(*digest) : "";
}

}  // namespace

std::string ValueFingerprint(const std::string& fingerprint, uint32_t item) {
  CanonicalWriter w;
  w.String("ldp-value-fingerprint-v1");
  w.String(fingerprint);
  w.Int(item);
  return Sha256Hex(w.bytes());
}

std::string TaskFingerprint(const Task& canonical, const RecordSchema& schema) {
  CanonicalWriter w;
  w.String("ldp-task-fingerprint-v2");
  WriteSchema(schema, FieldsRead(canonical), w);
  const Task& task = canonical;
  WriteQuestion(task, w);
  return Sha256Hex(w.bytes());
}

}  // namespace ldp
