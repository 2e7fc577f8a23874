#include "runtime/resource/metadata.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace cosi {
namespace {

struct AtomPairHash {
  std::size_t operator()(const std::pair<const void*, const void*>& p) const noexcept {
    return std::hash<const void*>{}(p.first) * 31 ^ std::hash<const void*>{}(p.second);
  }
};

// Every (namespace, type) pair a Metadata was made with, each stored once for the life of the
// process, like Atoms. A thread asks the pool only when the pair differs from its last one.
class KindPool {
 public:
  const Kind* intern(Atom ns, Atom type) {
    thread_local const Kind* last = nullptr;
    if (last != nullptr && last->ns == ns && last->type == type) return last;
    const std::pair<const void*, const void*> key{ns.identity(), type.identity()};
    {
      std::shared_lock lock(mu_);
      if (auto it = kinds_.find(key); it != kinds_.end()) return last = it->second;
    }
    std::unique_lock lock(mu_);
    auto [it, added] = kinds_.try_emplace(key, nullptr);
    if (added) it->second = new Kind{ns, type};
    return last = it->second;
  }

 private:
  std::shared_mutex mu_;
  std::unordered_map<std::pair<const void*, const void*>, const Kind*, AtomPairHash> kinds_;  // guarded by mu_
};

const Kind* intern_kind(Atom ns, Atom type) {
  static auto* pool = new KindPool();  // never destroyed: metadata may outlive static teardown
  return pool->intern(ns, type);
}

}  // namespace

Metadata::Metadata() : kind_(intern_kind(Atom(), Atom())) {}

Metadata::Metadata(Atom ns, Atom type, std::string id) : kind_(intern_kind(ns, type)), id_(std::move(id)) {}

const Metadata::Tags& Metadata::tags() const {
  static const Tags kEmpty;
  const Tags* block = tags_.get();
  return block != nullptr ? *block : kEmpty;
}

Metadata::Tags& Metadata::SharedTags::mutate() {
  if (block_ == nullptr) {
    block_ = new Tags();
  } else if (block_->refs.load(std::memory_order_acquire) > 1) {
    SharedTags copy;
    copy.block_ = new Tags(*block_);
    std::swap(block_, copy.block_);
  }
  return *block_;
}

bool Metadata::same_content(const Metadata& other) const {
  if (owner_ != other.owner_ || phase_ != other.phase_) return false;
  if (tags_.get() == other.tags_.get()) return true;
  const Tags& a = tags();
  const Tags& b = other.tags();
  return a.labels == b.labels && a.annotations == b.annotations && a.finalizers == b.finalizers;
}

}  // namespace cosi
