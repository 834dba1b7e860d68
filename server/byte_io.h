// Minimal little-endian varint reader and writer for the server's own
// persisted formats (report payloads, round plans).
//
// Why not protobuf: the server core stays free of generated types, and these
// formats are tiny, fixed and versioned by their first byte. The reader is
// strict (truncation, overlong varints, oversized lengths are errors), since
// a database file is input like any other.
#ifndef LDP_SERVER_BYTE_IO_H_
#define LDP_SERVER_BYTE_IO_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace ldp {

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}

  void Varint(uint64_t value);
  void SignedVarint(int64_t value);  // zigzag
  void Fixed64(uint64_t value);
  void Double(double value);           // its IEEE-754 bits, exactly
  void Bytes(std::string_view bytes);  // length-prefixed

 private:
  std::string* out_;
};

// Every Read returns false (and leaves the output unspecified) on malformed
// input; once false, later reads also fail.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool Varint(uint64_t* value);
  bool SignedVarint(int64_t* value);
  bool Fixed64(uint64_t* value);
  bool Double(double* value);
  // At most max_length bytes; the view points into the input.
  bool Bytes(std::string_view* bytes, size_t max_length);
  // Reads a count of items that each need at least `min_item_bytes` more
  // input, rejecting counts the remaining input cannot hold.
  bool Count(uint64_t* count, size_t min_item_bytes);

  bool AtEnd() const { return ok_ && in_.empty(); }
  bool ok() const { return ok_; }

 private:
  bool Fail() { return ok_ = false; }

  std::string_view in_;
  bool ok_ = true;
};

}  // namespace ldp

#endif  // LDP_SERVER_BYTE_IO_H_
