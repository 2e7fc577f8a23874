#include "runtime/resource/tombstone.h"

#include "runtime/resource/typed_resource.h"

namespace cosi {
namespace {

struct TombstoneSpec {
  friend bool operator==(const TombstoneSpec&, const TombstoneSpec&) = default;
};

}  // namespace

// On the wire a tombstone carries an empty spec.
template <>
struct SpecTraits<TombstoneSpec> {
  static bool equal(const TombstoneSpec&, const TombstoneSpec&) { return true; }
  static std::string encode(const TombstoneSpec&) { return {}; }
};

ResourcePtr make_tombstone(const Pointer& pointer) {
  return make_resource(Metadata(pointer.ns, pointer.type, pointer.id), TombstoneSpec{});
}

bool is_tombstone(const Resource& resource) {
  return dynamic_cast<const TypedResource<TombstoneSpec>*>(&resource) != nullptr;
}

}  // namespace cosi
