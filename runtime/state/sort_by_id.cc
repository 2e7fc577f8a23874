#include "runtime/state/sort_by_id.h"

#include <algorithm>
#include <cstdint>

namespace cosi {
namespace {

// The id's first eight bytes, big-endian, zero-padded: comparing these orders ids the way
// comparing the strings does, up to ties.
std::uint64_t prefix(const std::string& id) {
  std::uint64_t p = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    p <<= 8;
    if (i < id.size()) p |= static_cast<unsigned char>(id[i]);
  }
  return p;
}

}  // namespace

void sort_by_id(std::vector<ResourcePtr>& resources) {
  struct Keyed {
    std::uint64_t prefix;
    ResourcePtr resource;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(resources.size());
  for (auto& r : resources) keyed.push_back({prefix(r->metadata().id()), std::move(r)});
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return a.resource->metadata().id() < b.resource->metadata().id();
  });
  for (std::size_t i = 0; i < keyed.size(); ++i) resources[i] = std::move(keyed[i].resource);
}

}  // namespace cosi
