#include "controllers/common/log_ring.h"

#include <algorithm>
#include <utility>

namespace cosi::controllers {

namespace {
constexpr std::size_t kLongestLine = 64 * 1024;
}

LogRing::LogRing(std::size_t capacity_bytes) : capacity_(std::max<std::size_t>(capacity_bytes, 1)) {}

void LogRing::add_line(std::string line) {
  bytes_ += line.size() + 1;
  lines_.push_back(std::move(line));
  while (bytes_ > capacity_ && lines_.size() > 1) {
    bytes_ -= lines_.front().size() + 1;
    lines_.pop_front();
    ++first_;
  }
}

void LogRing::write(std::string_view bytes) {
  const std::size_t longest = std::min(kLongestLine, std::max<std::size_t>(capacity_ - 1, 1));
  bool added = false;
  {
    std::lock_guard lock(mu_);
    while (!bytes.empty()) {
      const auto newline = bytes.find('\n');
      const std::string_view piece = bytes.substr(0, newline);
      partial_.append(piece);
      bytes.remove_prefix(newline == std::string_view::npos ? bytes.size() : newline + 1);
      while (partial_.size() > longest) {
        add_line(partial_.substr(0, longest));
        partial_.erase(0, longest);
        added = true;
      }
      if (newline != std::string_view::npos) {
        add_line(std::exchange(partial_, std::string()));
        added = true;
      }
    }
  }
  if (added) grew_.notify_all();
}

void LogRing::flush() {
  {
    std::lock_guard lock(mu_);
    if (partial_.empty()) return;
    add_line(std::exchange(partial_, std::string()));
  }
  grew_.notify_all();
}

LogRing::Lines LogRing::tail(int n) const {
  std::lock_guard lock(mu_);
  const std::size_t take = n < 0 ? lines_.size() : std::min<std::size_t>(static_cast<std::size_t>(n), lines_.size());
  Lines out;
  out.lines.assign(lines_.end() - static_cast<std::ptrdiff_t>(take), lines_.end());
  out.next = first_ + lines_.size();
  return out;
}

LogRing::Lines LogRing::read_from(uint64_t cursor, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  grew_.wait_until(lock, deadline, [&] { return first_ + lines_.size() > cursor; });
  Lines out;
  const uint64_t from = std::max(cursor, first_);
  for (uint64_t i = from; i < first_ + lines_.size(); ++i) out.lines.push_back(lines_[static_cast<std::size_t>(i - first_)]);
  out.next = std::max(cursor, first_ + lines_.size());
  return out;
}

std::size_t LogRing::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_ + partial_.size();
}

}  // namespace cosi::controllers
