#include "runtime/resource/atom.h"

#include <mutex>
#include <ostream>
#include <shared_mutex>
#include <unordered_set>

namespace cosi {
namespace {

struct TransparentHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

// Node-based, so the address of an interned string never changes.
class AtomPool {
 public:
  const std::string* intern(std::string_view value) {
    {
      std::shared_lock lock(mu_);
      if (auto it = strings_.find(value); it != strings_.end()) return &*it;
    }
    std::unique_lock lock(mu_);
    return &*strings_.emplace(value).first;
  }

 private:
  std::shared_mutex mu_;
  std::unordered_set<std::string, TransparentHash, std::equal_to<>> strings_;  // guarded by mu_
};

AtomPool& pool() {
  static auto* p = new AtomPool();  // never destroyed: atoms may be used during static teardown
  return *p;
}

const std::string* empty_string() {
  static const auto* s = new std::string();
  return s;
}

}  // namespace

Atom::Atom() : value_(empty_string()) {}

Atom::Atom(std::string_view value)
    : value_(value.empty() ? empty_string() : pool().intern(value)) {}

std::ostream& operator<<(std::ostream& os, Atom atom) { return os << atom.view(); }

}  // namespace cosi
