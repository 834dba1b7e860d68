// The real ldp-shuffler as a child process; see the header.
#include "tests/integration/shuffler_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

#ifndef LDP_SHUFFLER_BINARY
#error "LDP_SHUFFLER_BINARY must name the ldp-shuffler executable"
#endif

namespace ldp::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

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
  const std::string log = directory_ + "/shuffler.log";
  std::vector<std::string> args = {
      LDP_SHUFFLER_BINARY, "--data_dir=" + directory_ + "/data",
      absl::StrCat("--listen=127.0.0.1:", port_), "--port_file=" + port_file};
  args.insert(args.end(), flags_.begin(), flags_.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) return absl::InternalError("fork failed");
  if (pid_ == 0) {
    if (FILE* out = freopen(log.c_str(), "a", stdout)) (void)out;
    if (FILE* err = freopen(log.c_str(), "a", stderr)) (void)err;
    execv(LDP_SHUFFLER_BINARY, argv.data());
    _exit(127);
  }
  for (int i = 0; i < 400; ++i) {
    const std::string text(absl::StripAsciiWhitespace(ReadAll(port_file)));
    if (!text.empty() && std::stoi(text) > 0) {
      port_ = std::stoi(text);
      return absl::OkStatus();
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError(absl::StrCat("ldp-shuffler exited: ", Log()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError("ldp-shuffler did not start listening");
}

void ShufflerProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ShufflerProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string ShufflerProcess::Log() const {
  return ReadAll(directory_ + "/shuffler.log");
}

std::shared_ptr<grpc::Channel> ShufflerProcess::NewChannel() const {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(address(),
                                   grpc::InsecureChannelCredentials(), args);
}

}  // namespace ldp::testing
