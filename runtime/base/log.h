// Logger: structured logs, one line per event, key=value pairs after the message.
//
//   logger.info("reconcile failed", {{"controller", "EtcdMemberController"}, {"error", e.message()}});
//   -> ts=2026-12-02T12:00:00.123Z level=info msg="reconcile failed" controller=EtcdMemberController error="..."
//
// A Logger is a value passed to whoever logs; with_fields() makes one that adds fields to every
// line (the runtime gives each controller a logger carrying its name). Sinks are injected:
// stderr in production, a vector in tests.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cosi {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

std::string_view to_string(LogLevel level);

using LogField = std::pair<std::string, std::string>;
using LogFields = std::vector<LogField>;

struct LogRecord {
  LogLevel level;
  std::string message;
  LogFields fields;
};

// Where log records go. Must be thread-safe.
using LogSink = std::function<void(const LogRecord&)>;

// The key=value line of a record, with a timestamp.
std::string format_log_line(const LogRecord& record);

// Writes format_log_line() of every record at or above `min` to stderr, one write per line.
LogSink stderr_sink(LogLevel min = LogLevel::kInfo);

class Logger {
 public:
  Logger() = default;  // discards everything
  explicit Logger(LogSink sink) : sink_(std::make_shared<LogSink>(std::move(sink))) {}

  Logger with_fields(LogFields fields) const;

  void log(LogLevel level, std::string_view message, LogFields fields = {}) const;
  void debug(std::string_view m, LogFields f = {}) const { log(LogLevel::kDebug, m, std::move(f)); }
  void info(std::string_view m, LogFields f = {}) const { log(LogLevel::kInfo, m, std::move(f)); }
  void warn(std::string_view m, LogFields f = {}) const { log(LogLevel::kWarn, m, std::move(f)); }
  void error(std::string_view m, LogFields f = {}) const { log(LogLevel::kError, m, std::move(f)); }

 private:
  std::shared_ptr<const LogSink> sink_;
  std::shared_ptr<const LogFields> fields_;  // shared: copying a logger allocates nothing
};

}  // namespace cosi
