// A library inside an app must not print: every C entry point that takes
// bytes (ldp_agent_answer_poll with and without ldp_agent_use_shuffler,
// ldp_agent_record_upload and ldp_agent_record_shuffled_upload on either
// side, ldp_agent_open with a saved blob, ldp_agent_enroll_request) is fed
// malformed bytes (strings that are not UTF-8, every bit flip and every
// cut of a real message, garbage, nesting past protobuf's limit) while
// file descriptor 2 is redirected to a file, and the file must stay empty.
// A control shows the capture sees protobuf's own complaint.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "client/agent_c/ldp_agent.h"
#include "client/agent_c/quiet_parse.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "tests/client/agent_c/agent_c_session.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"
#include "tests/testing/deep_expression.h"

namespace ldp::agent_c_quiet_test {
namespace {

constexpr uint64_t kQuietAgent = 62;

// Everything written to file descriptor 2 while `body` ran.
std::string Stderr(const std::function<void()>& body) {
  std::fflush(stderr);
  std::cerr.flush();
  FILE* file = std::tmpfile();
  if (file == nullptr) return "cannot make a temporary file";
  const int saved = dup(2);
  dup2(fileno(file), 2);
  body();
  std::fflush(stderr);
  std::cerr.flush();
  dup2(saved, 2);
  close(saved);
  std::string written;
  std::rewind(file);
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file)) > 0;) {
    written.append(buffer, n);
  }
  std::fclose(file);
  return written;
}

// `bytes` with its first `marker` replaced by `with` (the same length).
std::string Swap(std::string bytes, const std::string& marker,
                 const std::string& with) {
  const size_t at = bytes.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  EXPECT_EQ(marker.size(), with.size());
  if (at != std::string::npos) bytes.replace(at, marker.size(), with);
  return bytes;
}

// `valid`, then every single-bit flip of it and every cut of it short.
void AddDamaged(const std::string& valid, std::vector<std::string>& out) {
  out.push_back(valid);
  for (size_t bit = 0; bit < valid.size() * 8; ++bit) {
    std::string flipped = valid;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    out.push_back(flipped);
  }
  for (size_t n = 0; n < valid.size(); ++n) out.push_back(valid.substr(0, n));
}

// Garbage, random bytes, and strings that are not UTF-8 in every message
// an entry point reads, at the top and deep inside.
std::vector<std::string> Malformed() {
  std::vector<std::string> out = {"", "not protobuf at all",
                                  std::string("\xff\xff\xff\xff", 4),
                                  std::string("\x0a\x05\xc0\x80", 4)};
  std::mt19937 gen(17);
  for (int i = 0; i < 200; ++i) {
    std::string random(gen() % 64, '\0');
    for (char& c : random) c = static_cast<char>(gen());
    out.push_back(random);
  }
  v1::Task named = testing::ColorTask(1, 1, 3);
  named.mutable_schema()->mutable_fields(0)->set_name("zzzz");
  for (const std::string& bad :
       {std::string("\xff\xfe\xfd\xfc", 4), std::string("\xc0\x80zz", 4),
        std::string("\xed\xa0\x80z", 4)}) {
    out.push_back(Swap(testing::PollBytes({named}), "zzzz", bad));
  }
  v1::Task deep = testing::ColorTask(1, 2, 3);  // the query replaces
  *deep.mutable_query()->mutable_root() = testing::DeepExpression(60, "zz");
  out.push_back(Swap(testing::PollBytes({deep}), "zz", "\xff\xff"));
  out.push_back(testing::PollBytes({deep}));
  v1::UploadReportsResponse acks;
  acks.add_acks()->set_message("zzzz");
  out.push_back(Swap(acks.SerializeAsString(), "zzzz", "\xf4\x90\x80\x80"));
  v1::SubmitResponse submit_acks;
  submit_acks.add_acks()->set_message("zzzz");
  out.push_back(Swap(submit_acks.SerializeAsString(), "zzzz", "\xf8zzz"));
  return out;
}

class AgentCQuietTest : public ::testing::Test {
 protected:
  // Real messages of every kind, with a sealed and a plain report pending.
  void SetUp() override {
    ASSERT_EQ(ldp_agent_use_shuffler(s_.agent, kQuietAgent, &s_.status),
              LDP_OK);
    const v1::Task shuffled = testing::ShuffledFor(
        testing::ColorTask(2, 1001, 3), kQuietAgent, testing::NewShuffleKeys());
    poll_ = testing::PollBytes({testing::ColorTask(1, 1, 3), shuffled});
    ASSERT_EQ(s_.Answer(poll_), LDP_OK) << s_.status.message;
    upload_ = s_.Next(false);
    submit_ = s_.Next(true);
    v1::UploadReportsRequest sent;
    ASSERT_TRUE(sent.ParseFromString(upload_));
    v1::UploadReportsResponse acks;
    acks.add_acks()->set_report_id(sent.reports(0).report_id());
    acks.mutable_acks(0)->set_code(14);
    acks.mutable_acks(0)->set_message("try later");
    upload_acks_ = acks.SerializeAsString();
    v1::SubmitResponse submit_acks;
    submit_acks.add_acks()->set_code(14);
    submit_acks.mutable_acks(0)->set_message("try later");
    submit_acks_ = submit_acks.SerializeAsString();
    blob_ = s_.storage.blob;
  }

  // Feeds `inputs` to the entry point `feed` with stderr captured; fails
  // naming `what` if anything was written.
  void ExpectSilent(const std::string& what,
                    const std::vector<std::string>& inputs,
                    const std::function<void(const std::string&)>& feed) {
    const std::string printed = Stderr([&] {
      for (const std::string& input : inputs) feed(input);
    });
    EXPECT_EQ(printed, "") << what << " printed (" << inputs.size()
                           << " inputs)";
  }

  int Record(bool shuffled, const std::string& request,
             const std::string& response) {
    const auto* req = testing::AppBytes(request);
    const auto* resp = testing::AppBytes(response);
    return shuffled ? ldp_agent_record_shuffled_upload(
                          s_.agent, req, request.size(), resp, response.size(),
                          nullptr, nullptr, &s_.status)
                    : ldp_agent_record_upload(s_.agent, req, request.size(),
                                              resp, response.size(), nullptr,
                                              nullptr, &s_.status);
  }

  testing::AgentCSession s_;
  std::string poll_, upload_, upload_acks_, submit_, submit_acks_, blob_;
};

TEST_F(AgentCQuietTest, TheCaptureSeesProtobufsOwnComplaint) {
  const std::string bad = Malformed().back();  // a SubmitAck, not UTF-8
  v1::SubmitResponse parsed;
  const std::string printed =
      Stderr([&] { EXPECT_FALSE(parsed.ParseFromString(bad)); });
  EXPECT_NE(printed.find("libprotobuf"), std::string::npos) << printed;
}

TEST_F(AgentCQuietTest, PollsPrintNothing) {
  std::vector<std::string> inputs = Malformed();
  AddDamaged(poll_, inputs);
  ExpectSilent("ldp_agent_answer_poll with a shuffler", inputs,
               [&](const std::string& in) { s_.Answer(in); });
  ASSERT_EQ(s_.Reopen(), LDP_OK);  // no shuffler now
  ExpectSilent("ldp_agent_answer_poll", inputs,
               [&](const std::string& in) { s_.Answer(in); });
}

TEST_F(AgentCQuietTest, AcksPrintNothing) {
  std::vector<std::string> inputs = Malformed();
  AddDamaged(upload_, inputs);
  AddDamaged(upload_acks_, inputs);
  AddDamaged(submit_, inputs);
  AddDamaged(submit_acks_, inputs);
  for (bool shuffled : {false, true}) {
    const std::string& request = shuffled ? submit_ : upload_;
    const std::string& response = shuffled ? submit_acks_ : upload_acks_;
    ExpectSilent(
        shuffled ? "the shuffled request" : "the request", inputs,
        [&](const std::string& in) { Record(shuffled, in, response); });
    ExpectSilent(shuffled ? "the shuffled response" : "the response", inputs,
                 [&](const std::string& in) { Record(shuffled, request, in); });
  }
}

TEST_F(AgentCQuietTest, SavedStatesAndEnrollmentPrintNothing) {
  std::vector<std::string> inputs = Malformed();
  AddDamaged(blob_, inputs);
  // The same state as a blob from before the digest: the bare text.
  const size_t text_at = blob_.find('\n') + 1;
  AddDamaged(blob_.substr(text_at, blob_.size() - text_at - 72), inputs);
  ExpectSilent("ldp_agent_open", inputs, [&](const std::string& in) {
    s_.storage.blob = in;
    s_.Reopen();
  });
  ExpectSilent("ldp_agent_enroll_request", inputs, [&](const std::string& in) {
    ldp_buffer out{};
    ldp_status status{};
    ldp_agent_enroll_request(in.data(), in.size(), in.data(), in.size(), &out,
                             &status);
    ldp_buffer_free(&out);
    ldp_agent_enroll_request("token", 5, in.data(), in.size(), &out, &status);
    ldp_buffer_free(&out);
  });
}

// The library's UTF-8 check is at least as strict as protobuf's: whatever
// it lets through, protobuf parses (so never complains about). Every
// string of 1 or 2 bytes, every 3-byte string whose lead can start a
// multi-byte form, and 4-byte strings over every such lead and second
// byte.
TEST(AgentCQuietUtf8Test, NothingTheCheckPassesMakesProtobufComplain) {
  v1::SubmitAck ack;
  ack.set_message("zzzz");
  const std::string valid = ack.SerializeAsString();
  int passed = 0;
  const auto check = [&](const std::string& s) {
    if (!IsUtf8(s)) return;
    ++passed;
    v1::SubmitAck parsed;
    const std::string padded = s + std::string(4 - s.size(), 'z');
    EXPECT_TRUE(parsed.ParseFromString(Swap(valid, "zzzz", padded)))
        << absl::CEscape(s);
  };
  for (int a = 0; a < 256; ++a) {
    check(std::string(1, static_cast<char>(a)));
    for (int b = 0; b < 256; ++b) {
      const std::string two{static_cast<char>(a), static_cast<char>(b)};
      check(two);
      if (a < 0xC0) continue;  // no 3- or 4-byte form starts below
      for (int c = 0; c < 256; ++c) check(two + static_cast<char>(c));
      for (char c : {'\x7f', '\x80', '\xbf', '\xc0'}) {
        check(two + c + '\x80');
        check(two + '\x80' + c);
      }
    }
  }
  EXPECT_GT(passed, 60000);  // it does not refuse everything
}

}  // namespace
}  // namespace ldp::agent_c_quiet_test
