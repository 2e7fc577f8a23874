// Metadata: everything about a resource except its spec — namespace, type, id, version, owner,
// phase, created and updated times, labels, annotations and finalizers (the fields of
// cosi.resource.Metadata).
//
//   Metadata md("cluster", "Members.cluster.talos.dev", "node-1");
//   md.mutable_labels().set("role", "controlplane");
//   md.pointer().to_string() == "Members.cluster.talos.dev(cluster/node-1)"
//
// Namespace, type and owner are Atoms, and the (namespace, type) pair is itself interned: a
// Metadata spends one pointer on its kind. Labels, annotations and finalizers live in one
// copy-on-write block shared between the snapshots of a resource until one of them changes,
// so an update that touches only the spec copies none of them.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <utility>

#include "runtime/resource/atom.h"
#include "runtime/resource/finalizers.h"
#include "runtime/resource/labels.h"
#include "runtime/resource/phase.h"
#include "runtime/resource/pointer.h"
#include "runtime/resource/version.h"

namespace cosi {

using Timestamp = std::chrono::system_clock::time_point;

class Metadata {
 public:
  Metadata();
  Metadata(Atom ns, Atom type, std::string id);

  Atom ns() const { return kind_->ns; }
  Atom type() const { return kind_->type; }
  const std::string& id() const { return id_; }
  const Kind& kind() const { return *kind_; }
  Pointer pointer() const { return {kind_->ns, kind_->type, id_}; }

  Version version() const { return version_; }
  Atom owner() const { return owner_; }
  Phase phase() const { return phase_; }
  Timestamp created() const { return created_; }
  Timestamp updated() const { return updated_; }
  const Labels& labels() const { return tags().labels; }
  const Annotations& annotations() const { return tags().annotations; }
  const Finalizers& finalizers() const { return tags().finalizers; }

  void set_id(std::string id) { id_ = std::move(id); }
  void set_version(Version version) { version_ = version; }
  void set_owner(Atom owner) { owner_ = owner; }
  void set_phase(Phase phase) { phase_ = phase; }
  void set_created(Timestamp t) { created_ = t; }
  void set_updated(Timestamp t) { updated_ = t; }
  Labels& mutable_labels() { return mutable_tags().labels; }
  Annotations& mutable_annotations() { return mutable_tags().annotations; }
  Finalizers& mutable_finalizers() { return mutable_tags().finalizers; }

  // Equal in everything a write can change: owner, phase, labels, annotations, finalizers.
  // Identity, version and timestamps are not compared.
  bool same_content(const Metadata& other) const;

  // "Members.cluster.talos.dev(cluster/node-1)"
  std::string describe() const { return pointer().to_string(); }

 private:
  struct Tags {
    Labels labels;
    Annotations annotations;
    Finalizers finalizers;
    mutable std::atomic<std::uint32_t> refs{1};

    Tags() = default;
    Tags(const Tags& other)
        : labels(other.labels), annotations(other.annotations), finalizers(other.finalizers) {}
  };
  // The block, shared by reference count: a pointer where a shared_ptr would be two.
  class SharedTags {
   public:
    SharedTags() = default;
    SharedTags(const SharedTags& other) : block_(other.block_) {
      if (block_ != nullptr) block_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    SharedTags(SharedTags&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
    SharedTags& operator=(SharedTags other) noexcept {
      std::swap(block_, other.block_);
      return *this;
    }
    ~SharedTags() {
      if (block_ != nullptr && block_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete block_;
    }
    const Tags* get() const { return block_; }
    // The block to write: made when absent, copied first when shared. A count of one means no
    // other Metadata shares it, and a second owner could only appear by copying this object,
    // which a writer holds exclusively.
    Tags& mutate();

   private:
    Tags* block_ = nullptr;
  };

  const Tags& tags() const;
  Tags& mutable_tags() { return tags_.mutate(); }

  const Kind* kind_;  // interned
  std::string id_;
  Atom owner_;
  Version version_;
  Phase phase_ = Phase::kRunning;
  Timestamp created_{};
  Timestamp updated_{};
  SharedTags tags_;  // empty when all empty
};

}  // namespace cosi
