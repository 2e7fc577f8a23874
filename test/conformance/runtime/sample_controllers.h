// Sample controllers the runtime conformance suite runs. Each is small and declares exactly
// what it reads and writes.
//
//   Ints ──IntToString──▶ Strings ──StringToSentence──▶ Sentences
//   Ints ──Sum──▶ Sums/total
//   Ints ──KeyedIntToString (per key)──▶ KeyedStrings
//   Ints (strong) ──Guard (finalizers on its inputs)──▶ Guards
//   Ints ──Lease (tears down outputs)──▶ Leases ◀──LeaseHolder (finalizers on Leases)
//   Groups (primary) + Ints labelled group=G (mapped) ──GroupTotal (per key)──▶ GroupTotals
//   Ints ──AlwaysFails, ──Throws
#pragma once

#include <atomic>
#include <string>

#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

namespace cosi::testing {

struct IntSpec {
  int value = 0;
  friend bool operator==(const IntSpec&, const IntSpec&) = default;
};
struct TextSpec {
  std::string text;
  friend bool operator==(const TextSpec&, const TextSpec&) = default;
};

inline const Kind kInts{"default", "Ints.test.cosi.dev"};
inline const Kind kStrings{"default", "Strings.test.cosi.dev"};
inline const Kind kSentences{"default", "Sentences.test.cosi.dev"};
inline const Kind kSums{"default", "Sums.test.cosi.dev"};
inline const Kind kKeyedStrings{"default", "KeyedStrings.test.cosi.dev"};
inline const Kind kGuards{"default", "Guards.test.cosi.dev"};
inline const Kind kLeases{"default", "Leases.test.cosi.dev"};
inline const Kind kGroups{"default", "Groups.test.cosi.dev"};
inline const Kind kGroupTotals{"default", "GroupTotals.test.cosi.dev"};

MutableResourcePtr make_int(const std::string& id, int value);
int int_value(const ResourcePtr& r);
const std::string& text_of(const ResourcePtr& r);

class IntToString final : public Controller {
 public:
  std::string name() const override { return "IntToString"; }
  std::vector<Input> inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {{kStrings.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

class StringToSentence final : public Controller {
 public:
  std::string name() const override { return "StringToSentence"; }
  std::vector<Input> inputs() const override { return {{kStrings.ns, kStrings.type}}; }
  std::vector<Output> outputs() const override { return {{kSentences.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

class Sum final : public Controller {
 public:
  std::string name() const override { return "Sum"; }
  std::vector<Input> inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {{kSums.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx) override;
  std::atomic<int> passes{0};
};

class KeyedIntToString final : public KeyedController {
 public:
  explicit KeyedIntToString(int concurrency = 2) : concurrency_(concurrency) {}
  std::string name() const override { return "KeyedIntToString"; }
  std::vector<Input> primary_inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {{kKeyedStrings.type}}; }
  int concurrency() const override { return concurrency_; }
  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override;

  std::atomic<int> running{0};
  std::atomic<int> max_running{0};

 private:
  int concurrency_;
};

// Holds a finalizer on every Int it mirrors into a Guard; releases it once the Int is torn
// down and its Guard is gone.
class Guard final : public KeyedController {
 public:
  std::string name() const override { return "Guard"; }
  std::vector<Input> primary_inputs() const override {
    return {{kInts.ns, kInts.type, std::nullopt, InputKind::kStrong}};
  }
  std::vector<Output> outputs() const override { return {{kGuards.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override;
};

// One Lease per Int; a Lease no longer wanted is torn down by the runtime and destroyed once
// LeaseHolder lets go of it.
class Lease final : public Controller {
 public:
  std::string name() const override { return "Lease"; }
  std::vector<Input> inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {{kLeases.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

class LeaseHolder final : public KeyedController {
 public:
  std::string name() const override { return "LeaseHolder"; }
  std::vector<Input> primary_inputs() const override {
    return {{kLeases.ns, kLeases.type, std::nullopt, InputKind::kStrong}};
  }
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override;
};

// Per key with a mapped input: the total of the Ints labelled group=<key> for every Group.
class GroupTotal final : public KeyedController {
 public:
  std::string name() const override { return "GroupTotal"; }
  std::vector<Input> primary_inputs() const override { return {{kGroups.ns, kGroups.type}}; }
  std::vector<Input> mapped_inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {{kGroupTotals.type}}; }
  std::vector<Pointer> map(ControllerReader& reader, const Pointer& changed) override;
  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override;
};

class AlwaysFails final : public Controller {
 public:
  std::string name() const override { return "AlwaysFails"; }
  std::vector<Input> inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext&) override {
    ++attempts;
    return ReconcileResult::retry(Error(ErrorKind::kUnavailable, "the dependency is down"));
  }
  std::atomic<int> attempts{0};
};

class Throws final : public Controller {
 public:
  std::string name() const override { return "Throws"; }
  std::vector<Input> inputs() const override { return {{kInts.ns, kInts.type}}; }
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext&) override {
    ++attempts;
    throw std::runtime_error("controller bug");
  }
  std::atomic<int> attempts{0};
};

}  // namespace cosi::testing
