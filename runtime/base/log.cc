#include "runtime/base/log.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>

namespace cosi {
namespace {

bool needs_quotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void append_value(std::string& out, std::string_view v) {
  if (!needs_quotes(v)) {
    out += v;
    return;
  }
  out += '"';
  for (char c : v) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string timestamp() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

std::string format_log_line(const LogRecord& record) {
  std::string line = "ts=" + timestamp() + " level=" + std::string(to_string(record.level)) + " msg=";
  append_value(line, record.message);
  for (const auto& [key, value] : record.fields) {
    line += ' ';
    line += key;
    line += '=';
    append_value(line, value);
  }
  return line;
}

LogSink stderr_sink(LogLevel min) {
  return [min](const LogRecord& record) {
    if (record.level < min) return;
    std::string line = format_log_line(record);
    line += '\n';
    // One write(2) per line keeps lines whole when threads log at once.
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  };
}

Logger Logger::with_fields(LogFields fields) const {
  Logger copy = *this;
  auto merged = std::make_shared<LogFields>(fields_ ? *fields_ : LogFields{});
  merged->insert(merged->end(), std::make_move_iterator(fields.begin()), std::make_move_iterator(fields.end()));
  copy.fields_ = std::move(merged);
  return copy;
}

void Logger::log(LogLevel level, std::string_view message, LogFields fields) const {
  if (!sink_) return;
  LogRecord record{level, std::string(message), fields_ ? *fields_ : LogFields{}};
  record.fields.insert(record.fields.end(), std::make_move_iterator(fields.begin()),
                       std::make_move_iterator(fields.end()));
  (*sink_)(record);
}

}  // namespace cosi
