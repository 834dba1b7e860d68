// The live study page's HTTP side: the one file that knows cpp-httplib
// (Debian's libcpp-httplib-dev). It serves
//   GET /              the page: markup, style and script, no study data
//   GET /page.js       its script; GET /page.css, its style
//   GET /api/fragment  the studies as an HTML fragment (tools/
//                      study_page_view.h), only with the analyst token
// and refuses everything else. The data is behind the analyst token: a
// request to /api/ without "Authorization: Bearer <token>" (the token
// ldp-server holds) gets 401 and nothing about any study. The page itself
// asks for the token once and keeps it in the tab's sessionStorage.
//
// HTTPS when given a certificate and key; plaintext is the caller's choice
// to make (tools/study_page/page_command.h allows it only on loopback).
#ifndef LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_SERVER_H_
#define LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace ldp {

struct StudyPageServerOptions {
  // Address to listen on; port 0 = any free port (see port()).
  std::string host = "127.0.0.1";
  int port = 8080;
  // PEM files: both for HTTPS, neither for plaintext.
  std::string tls_cert_file{};
  std::string tls_key_file{};
  // What a browser must present as its bearer token. Not empty.
  std::string token{};
};

class StudyPageServer {
 public:
  // Listens and serves on a thread of its own. `fragment` is called per
  // authorized /api/fragment request, from the server's threads.
  // INVALID_ARGUMENT for an empty token or half a certificate pair; a
  // certificate or key that does not load, or an address that cannot be
  // bound, is UNAVAILABLE naming it.
  static absl::StatusOr<std::unique_ptr<StudyPageServer>> Start(
      const StudyPageServerOptions& options,
      std::function<std::string()> fragment);
  ~StudyPageServer();
  StudyPageServer(const StudyPageServer&) = delete;
  StudyPageServer& operator=(const StudyPageServer&) = delete;

  int port() const { return port_; }
  bool tls() const { return tls_; }
  // "http(s)://host:port/".
  std::string Url() const;

  // Stops listening; in-flight requests finish. Idempotent.
  void Stop();

 private:
  StudyPageServer(std::unique_ptr<httplib::Server> server, std::string host,
                  int port, bool tls);

  std::unique_ptr<httplib::Server> server_;
  std::string host_;
  int port_ = 0;
  bool tls_ = false;
  std::thread thread_{};
};

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_STUDY_PAGE_SERVER_H_
