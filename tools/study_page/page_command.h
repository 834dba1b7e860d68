// `ldp page`: the live study page. A read-only web page for analysts that
// shows every study of one ldp-server as it fills
// (tools/study_page/study_page_view.h), served by this process
// (tools/study_page/study_page_server.h) from what it polls over the analyst
// API (tools/study_page/study_page_poller.h). ldp-server is not touched: the
// page is one more analyst client.
//
// Safe by default: the page listens on loopback; anywhere else it must be
// HTTPS, and it must be HTTPS whenever ldp-server itself is reached over
// TLS. The data is behind the analyst token the page also uses.
#ifndef LDP_TOOLS_STUDY_PAGE_PAGE_COMMAND_H_
#define LDP_TOOLS_STUDY_PAGE_PAGE_COMMAND_H_

#include <csignal>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "tools/analyst_client/analyst_client.h"

namespace ldp {

struct PageCommandOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0 = any free port
  // PEM files for HTTPS (both or neither).
  std::string tls_cert_file{};
  std::string tls_key_file{};
  // Whether `analyst` reaches ldp-server over TLS.
  bool server_uses_tls = false;
  // Written with the port once listening ("" = none).
  std::string port_file{};
  absl::Duration refresh = absl::Seconds(2);
  int max_studies = 20;
};

// OK, or why the options are unsafe or impossible: INVALID_ARGUMENT for a
// bad number or half a certificate pair, FAILED_PRECONDITION for plaintext
// off loopback or in front of a TLS server.
absl::Status ValidatePageOptions(const PageCommandOptions& options);

// Serves the page until one of `stop_signals` (blocked in every thread by
// the caller before any thread started) arrives. `token` is the analyst
// token: the page checks browsers against it.
absl::Status RunPageCommand(const AnalystClient& analyst,
                            const std::string& token,
                            const PageCommandOptions& options,
                            const sigset_t& stop_signals);

}  // namespace ldp

#endif  // LDP_TOOLS_STUDY_PAGE_PAGE_COMMAND_H_
