// Finalizers: the names of the controllers that still need a resource before it may be
// destroyed. A set that keeps insertion order (as COSI prints them).
//
//   Finalizers f;
//   f.add("EtcdMemberController");     // true: added
//   f.add("EtcdMemberController");     // false: already there
//   f.remove("EtcdMemberController");  // true
//   f.empty()                          // destroy is allowed again
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cosi {

class Finalizers {
 public:
  using const_iterator = std::vector<std::string>::const_iterator;

  Finalizers() = default;
  Finalizers(std::initializer_list<std::string_view> names);

  bool add(std::string_view name);  // true when added
  bool remove(std::string_view name);  // true when removed
  bool has(std::string_view name) const;

  std::size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const_iterator begin() const { return names_.begin(); }
  const_iterator end() const { return names_.end(); }

  friend bool operator==(const Finalizers&, const Finalizers&) = default;

 private:
  std::vector<std::string> names_;
};

}  // namespace cosi
