#include "runtime/resource/resource.h"

namespace cosi {

Resource::Caches& Resource::caches() const {
  if (Caches* c = caches_.load(std::memory_order_acquire)) return *c;
  auto* fresh = new Caches();
  Caches* expected = nullptr;
  if (caches_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread was first
  return *expected;
}

const Resource::EncodedSpec& Resource::encoded_spec() const {
  std::atomic<EncodedSpec*>& slot = caches().spec;
  if (const EncodedSpec* e = slot.load(std::memory_order_acquire)) return *e;
  auto* fresh = new EncodedSpec();
  fresh->encodable = encode_spec(&fresh->proto, &fresh->yaml);
  EncodedSpec* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;  // another thread was first
  return *expected;
}

const std::string& Resource::cache_wire(std::string bytes) const {
  std::atomic<const std::string*>& slot = caches().wire;
  auto* fresh = new std::string(std::move(bytes));
  const std::string* expected = nullptr;
  if (slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) return *fresh;
  delete fresh;
  return *expected;
}

}  // namespace cosi
