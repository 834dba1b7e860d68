// Reading a whole small file (tokens, PEM keys, study specs, quota lists,
// cache entries) with one error contract, so every binary tells the user
// the same thing about the same failure: which flag or file, which path,
// and the system's reason.
#ifndef LDP_COMMON_BASE_FILE_TEXT_H_
#define LDP_COMMON_BASE_FILE_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ldp {

// The file's bytes. `what` names the file for the user (e.g. "--token_file");
// errors read "<what> <path>: <reason>". NOT_FOUND when there is no such
// file (only then, so callers may treat it as "absent"), PERMISSION_DENIED
// when it may not be read, FAILED_PRECONDITION when it is not a readable
// file (a directory, a path through a file), DATA_LOSS if reading stops
// part way.
absl::StatusOr<std::string> ReadFileText(const std::string& path,
                                         std::string_view what);

// ReadFileText, then INVALID_ARGUMENT unless the text holds a PEM block
// (a "-----BEGIN " line): a key or certificate path mixed up with another
// file fails here, naming the flag, rather than deep inside TLS.
absl::StatusOr<std::string> ReadPemFile(const std::string& path,
                                        std::string_view what);

}  // namespace ldp

#endif  // LDP_COMMON_BASE_FILE_TEXT_H_
