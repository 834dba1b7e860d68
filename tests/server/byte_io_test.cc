#include "server/byte_io.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(ByteIo, RoundTripsEveryKind) {
  std::string bytes;
  ByteWriter out(&bytes);
  const uint64_t varints[] = {0,
                              1,
                              127,
                              128,
                              300,
                              uint64_t{1} << 63,
                              std::numeric_limits<uint64_t>::max()};
  const int64_t signed_values[] = {0,
                                   -1,
                                   1,
                                   -64,
                                   64,
                                   std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max()};
  for (uint64_t v : varints) out.Varint(v);
  for (int64_t v : signed_values) out.SignedVarint(v);
  out.Fixed64(0x0123456789abcdef);
  out.Double(-0.0);
  out.Double(std::nextafter(1.0, 2.0));
  out.Bytes("hello");

  ByteReader in(bytes);
  for (uint64_t v : varints) {
    uint64_t read = 0;
    ASSERT_TRUE(in.Varint(&read));
    EXPECT_EQ(read, v);
  }
  for (int64_t v : signed_values) {
    int64_t read = 0;
    ASSERT_TRUE(in.SignedVarint(&read));
    EXPECT_EQ(read, v);
  }
  uint64_t fixed = 0;
  ASSERT_TRUE(in.Fixed64(&fixed));
  EXPECT_EQ(fixed, 0x0123456789abcdefu);
  double d = 0;
  ASSERT_TRUE(in.Double(&d));
  EXPECT_TRUE(std::signbit(d));
  ASSERT_TRUE(in.Double(&d));
  EXPECT_EQ(d, std::nextafter(1.0, 2.0));
  std::string_view text;
  ASSERT_TRUE(in.Bytes(&text, 100));
  EXPECT_EQ(text, "hello");
  EXPECT_TRUE(in.AtEnd());
}

TEST(ByteIo, SmallValuesTakeOneByte) {
  std::string bytes;
  ByteWriter(&bytes).Varint(127);
  EXPECT_EQ(bytes.size(), 1u);
  bytes.clear();
  ByteWriter(&bytes).SignedVarint(-64);
  EXPECT_EQ(bytes.size(), 1u);
}

TEST(ByteIo, RejectsMalformedInput) {
  uint64_t v = 0;
  // Truncated varint.
  EXPECT_FALSE(ByteReader(std::string_view("\x80", 1)).Varint(&v));
  // Overlong encoding of zero.
  EXPECT_FALSE(ByteReader(std::string_view("\x80\x00", 2)).Varint(&v));
  // Eleven bytes / a tenth byte above 1.
  EXPECT_FALSE(ByteReader(std::string(10, '\xff') + '\x01').Varint(&v));
  EXPECT_FALSE(ByteReader(std::string(9, '\xff') + '\x02').Varint(&v));
  // Short fixed64.
  EXPECT_FALSE(ByteReader("1234567").Fixed64(&v));
  // Length beyond the input or the limit.
  std::string_view text;
  EXPECT_FALSE(ByteReader(std::string_view("\x05"
                                           "abc",
                                           4))
                   .Bytes(&text, 10));
  EXPECT_FALSE(ByteReader(std::string_view("\x03"
                                           "abc",
                                           4))
                   .Bytes(&text, 2));
  // A count the remaining input cannot hold.
  EXPECT_FALSE(ByteReader(std::string_view("\x02"
                                           "12345678",
                                           9))
                   .Count(&v, 8));
  EXPECT_TRUE(ByteReader(std::string_view("\x01"
                                          "12345678",
                                          9))
                  .Count(&v, 8));
}

TEST(ByteIo, FailureIsSticky) {
  ByteReader in(std::string_view("\x80", 1));
  uint64_t v = 0;
  EXPECT_FALSE(in.Varint(&v));
  EXPECT_FALSE(in.ok());
  EXPECT_FALSE(in.AtEnd());
}

}  // namespace
}  // namespace ldp
