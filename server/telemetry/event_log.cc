// logfmt event lines; see the header.
#include "server/telemetry/event_log.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace ldp {
namespace {

bool NeedsQuotes(std::string_view value) {
  if (value.empty()) return true;
  for (const char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

void AppendValue(std::string& out, std::string_view value) {
  if (!NeedsQuotes(value)) {
    out.append(value);
    return;
  }
  out.push_back('"');
  for (const char c : value) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          absl::StrAppend(
              &out, "\\x",
              absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(std::string_view name) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning,
                         LogLevel::kError}) {
    if (name == LogLevelName(level)) return level;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level \"", std::string(name),
                   "\"; use debug, info, warning or error"));
}

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

std::string FormatEvent(absl::Time time, LogLevel level, std::string_view event,
                        std::initializer_list<LogField> fields) {
  std::string line = absl::StrCat(
      "ts=",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone()),
      " level=", std::string(LogLevelName(level)), " event=");
  AppendValue(line, event);
  for (const LogField& field : fields) {
    line.push_back(' ');
    line.append(field.key);
    line.push_back('=');
    AppendValue(line, field.value);
  }
  return line;
}

void LineEventLog::Write(LogLevel level, std::string_view event,
                         std::initializer_list<LogField> fields) {
  if (level < min_level_) return;
  const std::string line =
      FormatEvent(clock_->Now(), level, event, fields) + "\n";
  absl::MutexLock lock(&mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace ldp
