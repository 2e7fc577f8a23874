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

#include <memory>
#include <string>

#include "runtime/resource/metadata.h"

namespace cosi {

class Resource {
 public:
  virtual ~Resource() = default;

  const Metadata& metadata() const { return metadata_; }
  Metadata& mutable_metadata() { return metadata_; }

  // A mutable copy (metadata and spec) that nobody else sees.
  virtual std::shared_ptr<Resource> clone() const = 0;

  // True when other has the same concrete type and an equal spec.
  virtual bool spec_equals(const Resource& other) const = 0;

  // The spec's protobuf encoding and YAML rendering (empty when the type has none); false when
  // the spec type has no encoding at all. What the API and plugins send.
  virtual bool encode_spec(std::string* proto, std::string* yaml) const = 0;

  // Same spec and same content in metadata (Metadata::same_content): writing one over the
  // other changes nothing.
  bool same_content(const Resource& other) const {
    return metadata_.same_content(other.metadata_) && spec_equals(other);
  }

 protected:
  explicit Resource(Metadata metadata) : metadata_(std::move(metadata)) {}
  Resource(const Resource&) = default;
  Resource& operator=(const Resource&) = default;

 private:
  Metadata metadata_;
};

using ResourcePtr = std::shared_ptr<const Resource>;
using MutableResourcePtr = std::shared_ptr<Resource>;

}  // namespace cosi
