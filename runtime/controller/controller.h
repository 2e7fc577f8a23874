// Controllers: the two shapes the runtime runs, and the declarations it checks.
//
// A controller declares what it reads (inputs) and writes (outputs); the runtime checks the
// declarations when it is added and enforces them on every call (ControllerContext).
//
//   Input{"cluster", "Members.cluster.talos.dev"}                  every Member, weak
//   Input{"etcd", "EtcdSpecs.etcd.talos.dev", "etcd", InputKind::kStrong}   one resource
//   Output{"EtcdMembers.etcd.talos.dev"}                           exclusive: only we write it
//
// Whole-set controller — one pass at a time, woken once however many inputs changed:
//
//   class HostnameController final : public Controller {
//     std::string name() const override { return "HostnameController"; }
//     std::vector<Input> inputs() const override { return {{"config", "MachineConfigs.config.talos.dev"}}; }
//     std::vector<Output> outputs() const override { return {{"HostnameSpecs.net.talos.dev"}}; }
//     ReconcileResult reconcile(ControllerContext& ctx) override {
//       ...read inputs, ctx.modify(...) each output wanted...
//       return ReconcileResult::done();   // outputs it owns and did not write are destroyed
//     }
//   };
//
// Per-key controller — reconcile(key) for each changed primary input, up to `concurrency`
// keys at once, never the same key twice at once. Changes of a mapped input are turned into
// primary keys by map().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/controller/reconcile_result.h"
#include "runtime/resource/pointer.h"

namespace cosi {

class ControllerContext;
class ControllerReader;

enum class InputKind {
  kWeak,          // every change; no finalizers
  kStrong,        // every change; the controller may hold finalizers on it
  kDestroyReady,  // only when a resource is tearing down with no finalizers left
};

struct Input {
  Input() = default;
  Input(Atom ns, Atom type, std::optional<std::string> id = std::nullopt, InputKind kind = InputKind::kWeak)
      : ns(ns), type(type), id(std::move(id)), kind(kind) {}

  Atom ns;
  Atom type;
  std::optional<std::string> id;  // one resource; nullopt: the whole kind
  InputKind kind = InputKind::kWeak;

  Kind resource_kind() const { return {ns, type}; }
  bool covers(const Pointer& p) const { return p.ns == ns && p.type == type && (!id || *id == p.id); }
  friend bool operator==(const Input&, const Input&) = default;
};

enum class OutputKind {
  kExclusive,  // only this controller writes resources of the type
  kShared,     // several controllers write the type; each touches only what it owns
};

struct Output {
  Output() = default;
  Output(Atom type, OutputKind kind = OutputKind::kExclusive) : type(type), kind(kind) {}  // NOLINT

  Atom type;
  OutputKind kind = OutputKind::kExclusive;
  friend bool operator==(const Output&, const Output&) = default;
};

class Controller {
 public:
  virtual ~Controller() = default;
  virtual std::string name() const = 0;
  virtual std::vector<Input> inputs() const = 0;
  virtual std::vector<Output> outputs() const = 0;
  // One pass. On done() or requeue_after() the runtime destroys (tearing down first) every
  // output this controller owns and did not write during the pass.
  virtual ReconcileResult reconcile(ControllerContext& ctx) = 0;
};

class KeyedController {
 public:
  virtual ~KeyedController() = default;
  virtual std::string name() const = 0;
  // A change of a primary input queues the changed resource's pointer as a key.
  virtual std::vector<Input> primary_inputs() const = 0;
  // A change of a mapped input is turned into keys by map().
  virtual std::vector<Input> mapped_inputs() const { return {}; }
  virtual std::vector<Output> outputs() const = 0;
  virtual int concurrency() const { return 1; }

  virtual std::vector<Pointer> map(ControllerReader& reader, const Pointer& changed) {
    (void)reader;
    (void)changed;
    return {};
  }
  // The key's resource may be missing (destroyed) or tearing down: clean up after it then.
  virtual ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) = 0;
};

}  // namespace cosi
