#include "test/conformance/runtime/sample_controllers.h"

#include <algorithm>

namespace cosi::testing {

MutableResourcePtr make_int(const std::string& id, int value) {
  return make_resource(Metadata(kInts.ns, kInts.type, id), IntSpec{value});
}

int int_value(const ResourcePtr& r) { return resource_cast<IntSpec>(r)->spec().value; }
const std::string& text_of(const ResourcePtr& r) { return resource_cast<TextSpec>(r)->spec().text; }

namespace {

Metadata at(const Kind& kind, const std::string& id) { return Metadata(kind.ns, kind.type, id); }

}  // namespace

ReconcileResult IntToString::reconcile(ControllerContext& ctx) {
  auto ints = ctx.list(kInts);
  if (!ints.ok()) return ReconcileResult::retry(ints.error());
  for (const auto& r : *ints) {
    if (r->metadata().phase() != Phase::kRunning) continue;
    std::string text = std::to_string(int_value(r));
    auto w = ctx.modify<TextSpec>(at(kStrings, r->metadata().id()), [&](TextSpec& s) { s.text = text; });
    if (!w.ok()) return ReconcileResult::retry(w.error());
  }
  return ReconcileResult::done();
}

ReconcileResult StringToSentence::reconcile(ControllerContext& ctx) {
  auto strings = ctx.list(kStrings);
  if (!strings.ok()) return ReconcileResult::retry(strings.error());
  for (const auto& r : *strings) {
    if (r->metadata().phase() != Phase::kRunning) continue;
    std::string text = "The number is " + text_of(r) + ".";
    auto w = ctx.modify<TextSpec>(at(kSentences, r->metadata().id()), [&](TextSpec& s) { s.text = text; });
    if (!w.ok()) return ReconcileResult::retry(w.error());
  }
  return ReconcileResult::done();
}

ReconcileResult Sum::reconcile(ControllerContext& ctx) {
  ++passes;
  auto ints = ctx.list(kInts);
  if (!ints.ok()) return ReconcileResult::retry(ints.error());
  int total = 0;
  for (const auto& r : *ints) total += int_value(r);
  auto w = ctx.modify<IntSpec>(at(kSums, "total"), [&](IntSpec& s) { s.value = total; });
  if (!w.ok()) return ReconcileResult::retry(w.error());
  return ReconcileResult::done();
}

ReconcileResult KeyedIntToString::reconcile(ControllerContext& ctx, const Pointer& key) {
  int now = ++running;
  int seen = max_running.load();
  while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
  }
  struct Leave {
    std::atomic<int>& n;
    ~Leave() { --n; }
  } leave{running};

  auto input = ctx.get(key);
  const Pointer out = kKeyedStrings.at(key.id);
  if (!input.ok()) {
    if (!input.error().is(ErrorKind::kNotFound)) return ReconcileResult::retry(input.error());
    auto s = ctx.destroy(out);
    if (!s.ok() && !s.error().is(ErrorKind::kNotFound)) return ReconcileResult::retry(s.error());
    return ReconcileResult::done();
  }
  std::string text = std::to_string(int_value(*input));
  auto w = ctx.modify<TextSpec>(at(kKeyedStrings, key.id), [&](TextSpec& s) { s.text = text; });
  if (!w.ok()) return ReconcileResult::retry(w.error());
  return ReconcileResult::done();
}

ReconcileResult Guard::reconcile(ControllerContext& ctx, const Pointer& key) {
  auto input = ctx.get(key);
  const Pointer out = kGuards.at(key.id);
  if (!input.ok()) {
    if (!input.error().is(ErrorKind::kNotFound)) return ReconcileResult::retry(input.error());
    return ReconcileResult::done();
  }
  if ((*input)->metadata().phase() == Phase::kTearingDown) {
    auto s = ctx.destroy(out);
    if (!s.ok() && !s.error().is(ErrorKind::kNotFound)) return ReconcileResult::retry(s.error());
    if (auto r = ctx.remove_finalizer(key); !r.ok()) return ReconcileResult::retry(r.error());
    return ReconcileResult::done();
  }
  if (auto s = ctx.add_finalizer(key); !s.ok()) return ReconcileResult::retry(s.error());
  int value = int_value(*input);
  auto w = ctx.modify<IntSpec>(at(kGuards, key.id), [&](IntSpec& s) { s.value = value; });
  if (!w.ok()) return ReconcileResult::retry(w.error());
  return ReconcileResult::done();
}

ReconcileResult Lease::reconcile(ControllerContext& ctx) {
  auto ints = ctx.list(kInts);
  if (!ints.ok()) return ReconcileResult::retry(ints.error());
  for (const auto& r : *ints) {
    auto w = ctx.modify<IntSpec>(at(kLeases, r->metadata().id()), [&](IntSpec& s) { s.value = int_value(r); });
    if (!w.ok()) return ReconcileResult::retry(w.error());
  }
  return ReconcileResult::done();
}

ReconcileResult LeaseHolder::reconcile(ControllerContext& ctx, const Pointer& key) {
  auto lease = ctx.get(key);
  if (!lease.ok()) return ReconcileResult::done();
  if ((*lease)->metadata().phase() == Phase::kTearingDown) {
    if (auto s = ctx.remove_finalizer(key); !s.ok()) return ReconcileResult::retry(s.error());
    return ReconcileResult::done();
  }
  if (auto s = ctx.add_finalizer(key); !s.ok()) return ReconcileResult::retry(s.error());
  return ReconcileResult::done();
}

std::vector<Pointer> GroupTotal::map(ControllerReader& reader, const Pointer& changed) {
  auto r = reader.get(changed);
  if (!r.ok()) return {};  // gone: its group was already told when it changed before
  auto group = (*r)->metadata().labels().get("group");
  if (!group) return {};
  return {kGroups.at(std::string(*group))};
}

ReconcileResult GroupTotal::reconcile(ControllerContext& ctx, const Pointer& key) {
  if (!ctx.get(key).ok()) {
    auto s = ctx.destroy(kGroupTotals.at(key.id));
    if (!s.ok() && !s.error().is(ErrorKind::kNotFound)) return ReconcileResult::retry(s.error());
    return ReconcileResult::done();
  }
  auto ints = ctx.list(kInts, {.label_queries = {LabelQuery{LabelTerm::equal("group", key.id)}}});
  if (!ints.ok()) return ReconcileResult::retry(ints.error());
  int total = 0;
  for (const auto& r : *ints) total += int_value(r);
  auto w = ctx.modify<IntSpec>(at(kGroupTotals, key.id), [&](IntSpec& s) { s.value = total; });
  if (!w.ok()) return ReconcileResult::retry(w.error());
  return ReconcileResult::done();
}

}  // namespace cosi::testing
