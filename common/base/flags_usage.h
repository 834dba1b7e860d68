// Makes --help list only the flags of one program's main file.
//
// Debian's Abseil lists under --help only flags defined in a file named like
// the program (ldp-agent.cc, ldp-agent_main.cc); ours live in files such as
// ldp_agent_main.cc, so --help would list none of them. Header-only and
// defines no flags: flags live only in main files, and each executable links
// absl::flags_usage itself.
#ifndef LDP_COMMON_BASE_FLAGS_USAGE_H_
#define LDP_COMMON_BASE_FLAGS_USAGE_H_

#include <string>
#include <string_view>

#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace ldp {

// --help lists the flags defined in files whose path contains
// `file_name_part` (e.g. "ldp_agent_main"). Call before ParseCommandLine.
inline void ShowOnlyFlagsFrom(std::string_view file_name_part) {
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags =
      [part = std::string(file_name_part)](absl::string_view path) {
        return absl::StrContains(path, part);
      };
  absl::SetFlagsUsageConfig(usage);
}

}  // namespace ldp

#endif  // LDP_COMMON_BASE_FLAGS_USAGE_H_
