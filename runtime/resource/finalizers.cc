#include "runtime/resource/finalizers.h"

#include <algorithm>

namespace cosi {

Finalizers::Finalizers(std::initializer_list<std::string_view> names) {
  for (auto name : names) add(name);
}

bool Finalizers::add(std::string_view name) {
  if (has(name)) return false;
  names_.emplace_back(name);
  return true;
}

bool Finalizers::remove(std::string_view name) {
  auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return false;
  names_.erase(it);
  return true;
}

bool Finalizers::has(std::string_view name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

}  // namespace cosi
