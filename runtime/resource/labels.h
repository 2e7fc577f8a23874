// Labels and Annotations: small string→string maps kept sorted by key, so equality, printing
// and iteration are deterministic. Resources carry few of them; a sorted vector beats a tree.
//
//   Labels labels{{"role", "controlplane"}};
//   labels.set("zone", "a");
//   labels.get("role")   -> "controlplane"  (std::optional<std::string_view>)
//   labels.erase("zone");
//   for (const auto& [key, value] : labels) ...
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cosi {

class KeyValues {
 public:
  using Entry = std::pair<std::string, std::string>;
  using const_iterator = std::vector<Entry>::const_iterator;

  KeyValues() = default;
  KeyValues(std::initializer_list<Entry> entries);

  std::optional<std::string_view> get(std::string_view key) const;
  bool contains(std::string_view key) const { return get(key).has_value(); }

  // Returns true when the map changed.
  bool set(std::string_view key, std::string_view value);
  bool erase(std::string_view key);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  friend bool operator==(const KeyValues&, const KeyValues&) = default;

 private:
  std::vector<Entry>::iterator lower_bound(std::string_view key);
  std::vector<Entry>::const_iterator lower_bound(std::string_view key) const;

  std::vector<Entry> entries_;  // sorted by key, keys unique
};

using Labels = KeyValues;
using Annotations = KeyValues;

}  // namespace cosi
