// The real ldp-shuffler as a child process; see the header.
#include "tests/integration/shuffler_process.h"

#include <stdlib.h>

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

#ifndef LDP_SHUFFLER_BINARY
#error "LDP_SHUFFLER_BINARY must name the ldp-shuffler executable"
#endif

namespace ldp::testing {

ShufflerProcess::ShufflerProcess(std::vector<std::string> flags)
    : flags_(std::move(flags)) {
  char pattern[] = "/tmp/ldp-shuffler-XXXXXX";
  directory_ = mkdtemp(pattern);
}

ShufflerProcess::~ShufflerProcess() {
  Kill();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

absl::Status ShufflerProcess::Start() {
  const std::string port_file = directory_ + "/port";
  std::filesystem::remove(port_file);
  std::vector<std::string> args = {
      LDP_SHUFFLER_BINARY, "--data_dir=" + directory_ + "/data",
      absl::StrCat("--listen=127.0.0.1:", port_), "--port_file=" + port_file};
  args.insert(args.end(), flags_.begin(), flags_.end());
  RETURN_IF_ERROR(
      process_.Spawn(std::move(args), directory_ + "/shuffler.log"));
  ASSIGN_OR_RETURN(port_, process_.WaitForPort(port_file));
  return absl::OkStatus();
}

void ShufflerProcess::Stop() { process_.Stop(); }

void ShufflerProcess::Kill() { process_.Kill(); }

std::string ShufflerProcess::Log() const {
  return ReadFileOrEmpty(directory_ + "/shuffler.log");
}

std::shared_ptr<grpc::Channel> ShufflerProcess::NewChannel() const {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address(),
                                   grpc::InsecureChannelCredentials(), args);
}

}  // namespace ldp::testing
