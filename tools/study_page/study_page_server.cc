// The live study page's HTTP adapter; see the header.
#include "tools/study_page/study_page_server.h"

#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/crypto/constant_time.h"
#include "common/crypto/sha256.h"
#include "httplib.h"
#include "tools/study_page/study_page_assets.h"

namespace ldp {
namespace {

// Compares SHA-256 digests in constant time, so the time taken tells nothing
// of the token's length or of how much of it a guess got right. The
// expected token's digest is computed once, when the routes are made.
bool Authorized(const httplib::Request& request, const Sha256Digest& expected) {
  constexpr absl::string_view kPrefix = "Bearer ";
  const std::string header = request.get_header_value("Authorization");
  if (!absl::StartsWith(header, kPrefix)) return false;
  absl::StatusOr<Sha256Digest> presented =
      Sha256Of(std::string_view(header).substr(kPrefix.size()));
  return presented.ok() &&
         ConstantTimeEquals(DigestBytes(*presented), DigestBytes(expected));
}

// Every response: never cached (the fragment changes and is private), no
// framing, no sniffing, no referrer, and only the page's own script.
httplib::Headers SecurityHeaders() {
  return {{"Cache-Control", "no-store"},
          {"X-Content-Type-Options", "nosniff"},
          {"X-Frame-Options", "DENY"},
          {"Referrer-Policy", "no-referrer"},
          {"Content-Security-Policy",
           "default-src 'none'; script-src 'self'; style-src 'self'; "
           "img-src 'self'; connect-src 'self'; form-action 'none'; "
           "frame-ancestors 'none'; base-uri 'none'"}};
}

void Route(httplib::Server& server, const Sha256Digest& token_digest,
           std::function<std::string()> fragment) {
  server.set_default_headers(SecurityHeaders());
  server.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(std::string(kStudyPageHtml),
                         "text/html; charset=utf-8");
  });
  server.Get("/page.js",
             [](const httplib::Request&, httplib::Response& response) {
               response.set_content(std::string(kStudyPageScript),
                                    "text/javascript; charset=utf-8");
             });
  server.Get("/page.css",
             [](const httplib::Request&, httplib::Response& response) {
               response.set_content(std::string(kStudyPageStyle),
                                    "text/css; charset=utf-8");
             });
  server.Get("/api/fragment", [token_digest, fragment = std::move(fragment)](
                                  const httplib::Request& request,
                                  httplib::Response& response) {
    if (!Authorized(request, token_digest)) {
      response.status = 401;
      response.set_header("WWW-Authenticate", "Bearer realm=\"ldp\"");
      response.set_content("the analyst token is missing or wrong\n",
                           "text/plain; charset=utf-8");
      return;
    }
    response.set_content(fragment(), "text/html; charset=utf-8");
  });
}

absl::StatusOr<std::unique_ptr<httplib::Server>> MakeServer(
    const StudyPageServerOptions& options) {
  if (options.tls_cert_file.empty() && options.tls_key_file.empty()) {
    return std::make_unique<httplib::Server>();
  }
  if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "HTTPS needs both a certificate and its private key");
  }
  auto server = std::make_unique<httplib::SSLServer>(
      options.tls_cert_file.c_str(), options.tls_key_file.c_str());
  if (!server->is_valid()) {
    return absl::UnavailableError(
        absl::StrCat("cannot load the page's certificate ",
                     options.tls_cert_file, " and key ", options.tls_key_file,
                     " (PEM files, the key matching the certificate)"));
  }
  return server;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StudyPageServer>> StudyPageServer::Start(
    const StudyPageServerOptions& options,
    std::function<std::string()> fragment) {
  if (options.token.empty()) {
    return absl::InvalidArgumentError(
        "the page needs the analyst token to check");
  }
  absl::StatusOr<Sha256Digest> token_digest = Sha256Of(options.token);
  if (!token_digest.ok()) return token_digest.status();
  absl::StatusOr<std::unique_ptr<httplib::Server>> server = MakeServer(options);
  if (!server.ok()) return server.status();
  Route(**server, *token_digest, std::move(fragment));
  int port = options.port;
  if (port == 0) {
    port = (*server)->bind_to_any_port(options.host);
  } else if (!(*server)->bind_to_port(options.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.host, ":", options.port,
                     " (in use, or not an address of this machine)"));
  }
  const bool tls = !options.tls_cert_file.empty();
  std::unique_ptr<StudyPageServer> page(
      new StudyPageServer(*std::move(server), options.host, port, tls));
  page->thread_ =
      std::thread([raw = page->server_.get()] { raw->listen_after_bind(); });
  // Stop before the thread is listening would not stop it: wait for it.
  while (!page->server_->is_running()) absl::SleepFor(absl::Milliseconds(1));
  return page;
}

StudyPageServer::StudyPageServer(std::unique_ptr<httplib::Server> server,
                                 std::string host, int port, bool tls)
    : server_(std::move(server)),
      host_(std::move(host)),
      port_(port),
      tls_(tls) {}

StudyPageServer::~StudyPageServer() { Stop(); }

std::string StudyPageServer::Url() const {
  const bool v6 = absl::StrContains(host_, ':');
  return absl::StrCat(tls_ ? "https://" : "http://", v6 ? "[" : "", host_,
                      v6 ? "]" : "", ":", port_, "/");
}

void StudyPageServer::Stop() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace ldp
