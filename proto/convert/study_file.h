// Reads a study spec file as `ldp study create` and `ldp plan` take it: an
// ldp.v1.StudySpec in protobuf text format, or JSON when the name ends in
// ".json".
#ifndef LDP_PROTO_CONVERT_STUDY_FILE_H_
#define LDP_PROTO_CONVERT_STUDY_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/ldp/v1/analyst_service.pb.h"

namespace ldp {

// NotFound if the file cannot be read; InvalidArgument naming the format if
// it does not parse.
absl::StatusOr<v1::StudySpec> ReadStudySpecFile(const std::string& path);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_STUDY_FILE_H_
