// Structured server events, one line each, for operators and log shippers:
//   ts=2026-11-23T02:16:24.123Z level=info event=round_closed study=3 round=7
//   state=deadline reports=1042
// key=value pairs (logfmt): a value with a space, a quote, '=' or a control
// character is double-quoted with \" \\ \n escaped, so one event is always
// one line and parses back unambiguously. Events below the minimum level
// are dropped. The core (aggregator) writes through the EventLog interface
// and never formats for a particular sink.
#ifndef LDP_SERVER_TELEMETRY_EVENT_LOG_H_
#define LDP_SERVER_TELEMETRY_EVENT_LOG_H_

#include <cstdio>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/base/clock.h"

namespace ldp {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// "debug", "info", "warning", "error"; InvalidArgument otherwise.
absl::StatusOr<LogLevel> ParseLogLevel(std::string_view name);
std::string_view LogLevelName(LogLevel level);

struct LogField {
  std::string_view key;  // [a-z_]+
  std::string value;
};

class EventLog {
 public:
  virtual ~EventLog() = default;
  virtual void Write(LogLevel level, std::string_view event,
                     std::initializer_list<LogField> fields) = 0;
};

// The line for one event (without the newline).
std::string FormatEvent(absl::Time time, LogLevel level, std::string_view event,
                        std::initializer_list<LogField> fields);

// Lines to a stdio stream (stderr by default). Thread-safe: each event is
// written whole, under a lock.
class LineEventLog final : public EventLog {
 public:
  LineEventLog(LogLevel min_level, const Clock* clock, std::FILE* out = stderr)
      : min_level_(min_level), clock_(clock), out_(out) {}
  void Write(LogLevel level, std::string_view event,
             std::initializer_list<LogField> fields) override;

 private:
  const LogLevel min_level_;
  const Clock* const clock_;
  std::FILE* const out_;
  absl::Mutex mutex_;
};

}  // namespace ldp

#endif  // LDP_SERVER_TELEMETRY_EVENT_LOG_H_
