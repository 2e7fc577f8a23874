// cosi-store-demo: a tour of the resource store, until machined exists.
//
// Creates a few resources, watches them, updates one, tears one down behind a finalizer,
// then shows a watcher that fell far behind catching up with one coalesced event per
// resource instead of dying.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/resource/typed_resource.h"
#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"

namespace {

using namespace cosi;

struct MemberSpec {
  std::string hostname;
  std::string machine_type;
  friend bool operator==(const MemberSpec&, const MemberSpec&) = default;
};

const Kind kMembers{"cluster", "Members.cluster.talos.dev"};
const Atom kOwner = "MemberController";

void print_events(Watch& watch, const char* who) {
  std::vector<Event> events;
  watch.poll(events);
  for (const Event& e : events) {
    const Metadata& md = e.resource->metadata();
    std::printf("  %-8s %-12s %-10s version=%s phase=%s\n", who, std::string(to_string(e.type)).c_str(),
                md.id().empty() ? "-" : md.id().c_str(), md.version().to_string().c_str(),
                std::string(to_string(md.phase())).c_str());
  }
}

int fail(const Error& e) {
  std::fprintf(stderr, "cosi-store-demo: %s\n", e.to_string().c_str());
  return 1;
}

}  // namespace

int main() {
  MemoryState state;
  auto watch = state.watch_kind(kMembers, {.bootstrap_contents = true});
  auto slow = state.watch_kind(kMembers, {.buffer = 4});
  if (!watch.ok()) return fail(watch.error());
  if (!slow.ok()) return fail(slow.error());

  std::puts("create three members:");
  for (const char* name : {"cp-1", "cp-2", "worker-1"}) {
    std::string type = std::string(name).starts_with("cp") ? "controlplane" : "worker";
    auto r = make_resource(Metadata(kMembers.ns, kMembers.type, name), MemberSpec{name, type});
    if (auto c = state.create(std::move(r), {kOwner}); !c.ok()) return fail(c.error());
  }
  print_events(**watch, "watch");

  std::puts("update cp-1 twice (the second changes nothing and is not a write):");
  for (int i = 0; i < 2; ++i) {
    auto u = update_with_conflicts(state, kMembers.at("cp-1"),
                                   [](Resource& r) {
                                     typed<MemberSpec>(r).hostname = "cp-1.example";
                                     return Status();
                                   },
                                   {kOwner});
    if (!u.ok()) return fail(u.error());
  }
  print_events(**watch, "watch");

  std::puts("worker-1 gets a finalizer, is torn down, released and destroyed:");
  const Pointer worker = kMembers.at("worker-1");
  if (auto s = add_finalizer(state, worker, "EtcdController"); !s.ok()) return fail(s.error());
  auto ready = teardown(state, worker, kOwner);
  if (!ready.ok()) return fail(ready.error());
  std::printf("  ready to destroy: %s\n", *ready ? "yes" : "no (finalizer pending)");
  if (auto s = remove_finalizer(state, worker, "EtcdController"); !s.ok()) return fail(s.error());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  if (auto s = teardown_and_destroy(state, worker, kOwner, deadline); !s.ok()) return fail(s.error());
  print_events(**watch, "watch");

  std::puts("the slow watcher (buffer of 4) took nothing so far; it now catches up:");
  print_events(**slow, "slow");

  std::puts("members now:");
  auto members = state.list(kMembers);
  if (!members.ok()) return fail(members.error());
  for (const auto& r : *members) {
    auto m = resource_cast<MemberSpec>(r);
    std::printf("  %-10s %-14s %-12s version=%s\n", r->metadata().id().c_str(),
                m->spec().hostname.c_str(), m->spec().machine_type.c_str(),
                r->metadata().version().to_string().c_str());
  }
  for (const auto& [kind, stats] : state.stats()) {
    std::printf("%s: %zu resources, %zu watchers, %llu events coalesced\n", kind.to_string().c_str(),
                stats.resources, stats.watchers,
                static_cast<unsigned long long>(stats.coalesced_events));
  }
  return 0;
}
