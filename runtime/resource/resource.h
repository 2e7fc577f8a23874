// Resource: metadata + spec. Stored resources are immutable, shared snapshots:
// ResourcePtr is a shared_ptr to const, and a read hands out the snapshot itself — no copy.
// To change a resource, clone it, edit the copy, and write the copy:
//
//   ResourcePtr current = *state.get(pointer);
//   MutableResourcePtr next = current->clone();
//   next->mutable_metadata().mutable_labels().set("zone", "a");
//   state.update(next);
//
// The spec lives in a subclass (TypedResource<Spec>); this base knows only how to copy a
// resource and how to compare two specs.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "runtime/resource/metadata.h"

namespace cosi {

class Resource {
 public:
  // The spec's encodings, computed once per object and kept with it: a stored snapshot never
  // changes, so the API serves each from this cache however many clients read it.
  struct EncodedSpec {
    bool encodable = false;
    std::string proto;
    std::string yaml;
  };

  virtual ~Resource() { delete caches_.load(std::memory_order_relaxed); }

  const Metadata& metadata() const { return metadata_; }
  Metadata& mutable_metadata() {
    forget_wire();
    return metadata_;
  }

  // A mutable copy (metadata and spec) that nobody else sees.
  virtual std::shared_ptr<Resource> clone() const = 0;

  // True when other has the same concrete type and an equal spec.
  virtual bool spec_equals(const Resource& other) const = 0;

  // The spec's protobuf encoding and YAML rendering (empty when the type has none); false when
  // the spec type has no encoding at all. What the API and plugins send.
  virtual bool encode_spec(std::string* proto, std::string* yaml) const = 0;

  // encode_spec(), cached. Thread-safe.
  const EncodedSpec& encoded_spec() const;

  // The resource's whole wire form (metadata and spec), as the codec (runtime/proto) made it
  // the first time; null until then. Kept like the spec's encodings, forgotten on any change.
  const std::string* cached_wire() const {
    const Caches* c = caches_.load(std::memory_order_acquire);
    return c != nullptr ? c->wire.load(std::memory_order_acquire) : nullptr;
  }
  const std::string& cache_wire(std::string bytes) const;

  // Same spec and same content in metadata (Metadata::same_content): writing one over the
  // other changes nothing.
  bool same_content(const Resource& other) const {
    return metadata_.same_content(other.metadata_) && spec_equals(other);
  }

 protected:
  explicit Resource(Metadata metadata) : metadata_(std::move(metadata)) {}
  // A copy starts without the caches.
  Resource(const Resource& other) : metadata_(other.metadata_) {}
  Resource& operator=(const Resource&) = delete;

  // Subclasses call this when their spec changes. A resource being changed is its writer's
  // alone, so a plain load first spares the locked exchange when there is nothing to forget
  // (a fresh copy never has caches).
  void forget_encoding() {
    if (caches_.load(std::memory_order_acquire) != nullptr) delete caches_.exchange(nullptr, std::memory_order_acq_rel);
  }
  void forget_wire() {
    if (Caches* c = caches_.load(std::memory_order_acquire)) delete c->wire.exchange(nullptr, std::memory_order_acq_rel);
  }

 private:
  // Both caches behind one pointer, made the first time either is asked for: most resources
  // are never encoded, and each of them is a pointer smaller for it.
  struct Caches {
    std::atomic<EncodedSpec*> spec{nullptr};
    std::atomic<const std::string*> wire{nullptr};
    ~Caches() {
      delete spec.load(std::memory_order_relaxed);
      delete wire.load(std::memory_order_relaxed);
    }
  };
  Caches& caches() const;

  Metadata metadata_;
  mutable std::atomic<Caches*> caches_{nullptr};
};

using ResourcePtr = std::shared_ptr<const Resource>;
using MutableResourcePtr = std::shared_ptr<Resource>;

}  // namespace cosi
