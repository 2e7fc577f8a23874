#include "runtime/resource/labels.h"

#include <algorithm>

namespace cosi {

KeyValues::KeyValues(std::initializer_list<Entry> entries) {
  for (const auto& [key, value] : entries) set(key, value);
}

std::vector<KeyValues::Entry>::iterator KeyValues::lower_bound(std::string_view key) {
  return std::lower_bound(entries_.begin(), entries_.end(), key,
                          [](const Entry& e, std::string_view k) { return e.first < k; });
}

std::vector<KeyValues::Entry>::const_iterator KeyValues::lower_bound(std::string_view key) const {
  return std::lower_bound(entries_.begin(), entries_.end(), key,
                          [](const Entry& e, std::string_view k) { return e.first < k; });
}

std::optional<std::string_view> KeyValues::get(std::string_view key) const {
  auto it = lower_bound(key);
  if (it == entries_.end() || it->first != key) return std::nullopt;
  return std::string_view(it->second);
}

bool KeyValues::set(std::string_view key, std::string_view value) {
  auto it = lower_bound(key);
  if (it != entries_.end() && it->first == key) {
    if (it->second == value) return false;
    it->second.assign(value);
    return true;
  }
  entries_.emplace(it, std::string(key), std::string(value));
  return true;
}

bool KeyValues::erase(std::string_view key) {
  auto it = lower_bound(key);
  if (it == entries_.end() || it->first != key) return false;
  entries_.erase(it);
  return true;
}

}  // namespace cosi
