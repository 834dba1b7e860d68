// The live study page's HTTP side, over a real socket: the data answers
// only the analyst token, the static page holds no data, every response
// carries the security headers, and bad certificate settings are refused.
#include "tools/study_page/study_page_server.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecretFragment[] =
    "<section>study 7 has 1234 reports</section>";

class StudyPageServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = StudyPageServer::Start(
        {.host = "127.0.0.1", .port = 0, .token = "s3cret-token"},
        [] { return std::string(kSecretFragment); });
    ASSERT_OK(server);
    server_ = *std::move(server);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }

  httplib::Result GetFragment(const std::string& authorization) {
    httplib::Headers headers;
    if (!authorization.empty()) headers.emplace("Authorization", authorization);
    return client_->Get("/api/fragment", headers);
  }

  std::unique_ptr<StudyPageServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(StudyPageServerTest, TheFragmentAnswersOnlyTheAnalystToken) {
  const httplib::Result ok = GetFragment("Bearer s3cret-token");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->body, kSecretFragment);
  for (const std::string bad :
       {"", "Bearer ", "Bearer s3cret-toke", "Bearer s3cret-token2",
        "s3cret-token", "Basic s3cret-token", "bearer s3cret-token"}) {
    const httplib::Result refused = GetFragment(bad);
    ASSERT_TRUE(refused) << bad;
    EXPECT_EQ(refused->status, 401) << bad;
    EXPECT_THAT(refused->body, Not(HasSubstr("1234"))) << bad;
    EXPECT_EQ(refused->get_header_value("WWW-Authenticate"),
              "Bearer realm=\"ldp\"");
  }
}

TEST_F(StudyPageServerTest, ThePageItselfHoldsNoDataAndOnlyItsOwnScript) {
  const httplib::Result page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("<script src=\"/page.js\""));
  EXPECT_THAT(page->body, Not(HasSubstr("1234")));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"),
              HasSubstr("script-src 'self'"));
  EXPECT_EQ(page->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(page->get_header_value("X-Frame-Options"), "DENY");
  const httplib::Result script = client_->Get("/page.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_THAT(script->get_header_value("Content-Type"),
              HasSubstr("javascript"));
  EXPECT_THAT(script->body, HasSubstr("Authorization"));
}

TEST_F(StudyPageServerTest, AnythingElseIsNotFoundOrNotAllowed) {
  const httplib::Result missing = client_->Get("/api/studies");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  const httplib::Result post =
      client_->Post("/api/fragment", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_NE(post->status, 200);
  EXPECT_THAT(post->body, Not(HasSubstr("1234")));
}

TEST_F(StudyPageServerTest, StopsAndSaysWhereItListened) {
  EXPECT_EQ(server_->Url(),
            "http://127.0.0.1:" + std::to_string(server_->port()) + "/");
  EXPECT_FALSE(server_->tls());
  server_->Stop();
  server_->Stop();  // idempotent
  EXPECT_FALSE(client_->Get("/"));
}

TEST(StudyPageServerOptions, RefusesWhatCannotBeServedSafely) {
  const auto fragment = [] { return std::string(); };
  EXPECT_THAT(StudyPageServer::Start({.port = 0}, fragment).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      StudyPageServer::Start(
          {.port = 0, .tls_cert_file = "cert.pem", .token = "t"}, fragment)
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(StudyPageServer::Start({.port = 0,
                                      .tls_cert_file = "/nonexistent/cert.pem",
                                      .tls_key_file = "/nonexistent/key.pem",
                                      .token = "t"},
                                     fragment)
                  .status(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("/nonexistent/cert.pem")));
  EXPECT_THAT(
      StudyPageServer::Start({.host = "203.0.113.9", .port = 0, .token = "t"},
                             fragment)
          .status(),
      StatusIs(absl::StatusCode::kUnavailable, HasSubstr("203.0.113.9")));
}

}  // namespace
}  // namespace ldp
