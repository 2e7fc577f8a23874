// Metadata: everything about a resource except its spec — namespace, type, id, version, owner,
// phase, created and updated times, labels, annotations and finalizers (the fields of
// cosi.resource.Metadata).
//
//   Metadata md("cluster", "Members.cluster.talos.dev", "node-1");
//   md.mutable_labels().set("role", "controlplane");
//   md.pointer().to_string() == "Members.cluster.talos.dev(cluster/node-1)"
//
// Namespace, type and owner are Atoms. Labels, annotations and finalizers live in one
// copy-on-write block shared between the snapshots of a resource until one of them changes,
// so an update that touches only the spec copies none of them.
#pragma once

#include <chrono>
#include <memory>
#include <string>

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
  Metadata() = default;
  Metadata(Atom ns, Atom type, std::string id) : ns_(ns), type_(type), id_(std::move(id)) {}

  Atom ns() const { return ns_; }
  Atom type() const { return type_; }
  const std::string& id() const { return id_; }
  Kind kind() const { return {ns_, type_}; }
  Pointer pointer() const { return {ns_, type_, id_}; }

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
  };

  const Tags& tags() const;
  Tags& mutable_tags();

  Atom ns_;
  Atom type_;
  std::string id_;
  Atom owner_;
  Version version_;
  Phase phase_ = Phase::kRunning;
  Timestamp created_{};
  Timestamp updated_{};
  std::shared_ptr<Tags> tags_;  // null when all empty; copied before a write when shared
};

}  // namespace cosi
