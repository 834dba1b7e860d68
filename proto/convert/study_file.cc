// Study spec files in text format or JSON; see the header.
#include "proto/convert/study_file.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"

namespace ldp {

absl::StatusOr<v1::StudySpec> ReadStudySpecFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileText(path, "study spec"));
  v1::StudySpec spec;
  if (absl::EndsWith(path, ".json")) {
    auto status = google::protobuf::util::JsonStringToMessage(text, &spec);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " is not an ldp.v1.StudySpec in JSON: ", status.ToString()));
    }
    return spec;
  }
  if (!google::protobuf::TextFormat::ParseFromString(text, &spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        " is not an ldp.v1.StudySpec in text format (see the parser "
        "messages above; use a .json name for JSON)"));
  }
  return spec;
}

}  // namespace ldp
