#include "runtime/resource/resource.h"

namespace cosi {

const Resource::EncodedSpec& Resource::encoded_spec() const {
  if (const EncodedSpec* e = encoded_.load(std::memory_order_acquire)) return *e;
  auto* fresh = new EncodedSpec();
  fresh->encodable = encode_spec(&fresh->proto, &fresh->yaml);
  EncodedSpec* expected = nullptr;
  if (encoded_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread was first
  return *expected;
}

const std::string& Resource::cache_wire(std::string bytes) const {
  auto* fresh = new std::string(std::move(bytes));
  const std::string* expected = nullptr;
  if (wire_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *expected;
}

}  // namespace cosi
