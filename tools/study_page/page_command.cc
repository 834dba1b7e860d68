// `ldp page`; see the header.
#include "tools/study_page/page_command.h"

#include <cstdio>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/base/host_address.h"
#include "tools/study_page/study_page_poller.h"
#include "tools/study_page/study_page_server.h"

namespace ldp {
namespace {

absl::Status WritePortFile(const std::string& path, int port) {
  if (path.empty()) return absl::OkStatus();
  std::ofstream file(path, std::ios::trunc);
  file << port << "\n";
  file.close();
  if (!file) {
    return absl::UnavailableError(
        absl::StrCat("cannot write --page_port_file ", path));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePageOptions(const PageCommandOptions& options) {
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("--page_port must be in [0, 65535]");
  }
  if (options.refresh < absl::Milliseconds(100)) {
    return absl::InvalidArgumentError("--refresh_seconds must be >= 0.1");
  }
  if (options.max_studies < 1) {
    return absl::InvalidArgumentError("--max_studies must be >= 1");
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        "give both --page_cert_file and --page_key_file, or neither");
  }
  if (!options.tls_cert_file.empty()) return absl::OkStatus();
  if (options.server_uses_tls) {
    return absl::FailedPreconditionError(
        "ldp-server is reached over TLS, so the page must be HTTPS too: give "
        "--page_cert_file and --page_key_file");
  }
  if (!IsLoopback(options.host)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve the page in plaintext on ", options.host,
        ": the analyst token and the studies would cross the network in the "
        "clear. Give --page_cert_file and --page_key_file, or listen on "
        "127.0.0.1"));
  }
  return absl::OkStatus();
}

absl::Status RunPageCommand(const AnalystClient& analyst,
                            const std::string& token,
                            const PageCommandOptions& options,
                            const sigset_t& stop_signals) {
  if (absl::Status valid = ValidatePageOptions(options); !valid.ok())
    return valid;
  StudyPagePoller poller(
      analyst, *RealClock::Get(),
      {.max_studies = options.max_studies, .interval = options.refresh});
  absl::StatusOr<std::unique_ptr<StudyPageServer>> page =
      StudyPageServer::Start({.host = options.host,
                              .port = options.port,
                              .tls_cert_file = options.tls_cert_file,
                              .tls_key_file = options.tls_key_file,
                              .token = token},
                             [&poller] { return poller.Fragment(); });
  if (!page.ok()) return page.status();
  if (absl::Status s = WritePortFile(options.port_file, (*page)->port());
      !s.ok()) {
    return s;
  }
  poller.Start();
  std::printf(
      "ldp page: serving %s for the studies of %s; open it and give the "
      "analyst token. Ctrl-C stops.\n",
      (*page)->Url().c_str(), analyst.server().c_str());
  std::fflush(stdout);
  int received = 0;
  sigwait(&stop_signals, &received);
  (*page)->Stop();
  poller.Stop();
  std::printf("ldp page: signal %d, stopped\n", received);
  return absl::OkStatus();
}

}  // namespace ldp
