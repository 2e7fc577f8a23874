// LogRing: what a service wrote, kept as whole lines up to a number of bytes — the oldest lines
// go first — so a chatty service never fills memory or disk. Readers take the last N lines and
// follow what comes after them.
//
//   LogRing ring(1 << 20);
//   ring.write("started\nlisten");  ring.write("ing\n");
//   auto last = ring.tail(5);                   // {"started", "listening"}, last.next == 2
//   auto more = ring.read_from(last.next, deadline);   // waits for the next line
//
// Thread-safe. A line longer than the ring (or than 64 KiB) is cut into pieces that fit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace cosi::controllers {

class LogRing {
 public:
  explicit LogRing(std::size_t capacity_bytes);

  void write(std::string_view bytes);
  // A line written without its newline yet ends now (the writer has gone).
  void flush();

  struct Lines {
    std::vector<std::string> lines;
    uint64_t next = 0;  // the cursor after them
  };
  // The last `n` lines (every line kept when n < 0).
  Lines tail(int n) const;
  // The lines from `cursor` on (those dropped meanwhile are skipped), waiting until there is one
  // or the deadline passes.
  Lines read_from(uint64_t cursor, std::chrono::steady_clock::time_point deadline) const;

  std::size_t bytes() const;

 private:
  void add_line(std::string line);  // mu_ held

  const std::size_t capacity_;
  mutable std::mutex mu_;
  mutable std::condition_variable grew_;
  std::deque<std::string> lines_;  // guarded by mu_
  uint64_t first_ = 0;             // guarded by mu_: the cursor of lines_.front()
  std::size_t bytes_ = 0;          // guarded by mu_: of lines_, a byte per newline included
  std::string partial_;            // guarded by mu_: a line still being written
};

}  // namespace cosi::controllers
