// Store benchmarks (`meson test --benchmark` in a release build). Usage: store-bench <name>
// with name one of get, list1k, update, modify_noop, fanout100, memory. Each prints its
// measurements, then one BENCH line comparing MemoryState with BaselineStore (or, for
// modify_noop, with MemoryState's own get) measured in the same run.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/state/memory_state.h"
#include "runtime/state/state_ops.h"
#include "test/bench/baseline_store.h"
#include "test/bench/bench_report.h"

namespace cosi::bench {
namespace {

struct Payload {
  std::string bytes;  // 100 bytes in every benchmark
  friend bool operator==(const Payload&, const Payload&) = default;
};

const Kind kKind{"bench", "Payloads.bench.cosi.dev"};
constexpr int kRounds = 7;  // interleaved rounds of ours and the baseline (bench_report.h)
const Atom kOwner = "bench";

std::string id_of(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%07d", i);
  return buf;
}

MutableResourcePtr payload(const std::string& id, char fill = 'x') {
  return make_resource(Metadata(kKind.ns, kKind.type, id), Payload{std::string(100, fill)});
}

void fill(MemoryState& state, BaselineStore& base, int n) {
  for (int i = 0; i < n; ++i) {
    auto stored = *state.create(payload(id_of(i)), {kOwner});
    base.put(id_of(i), payload(id_of(i)));
  }
}

std::vector<int> random_order(int n, int count) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<int> out(static_cast<std::size_t>(count));
  for (auto& v : out) v = pick(rng);
  return out;
}

// Both sides get the same input: the id. Ours takes it with the kind it belongs to. A round is
// 2M lookups in 20 slices of 100k.
int bench_get() {
  constexpr int kN = 100000, kLookups = 2000000, kSlices = 20, kPerSlice = kLookups / kSlices;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  auto order = random_order(kN, kLookups);
  std::vector<std::string> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(id_of(i));
  auto slice_of = [&](int s) {
    return std::span<const int>(order).subspan(static_cast<std::size_t>(s) * kPerSlice, kPerSlice);
  };
  std::size_t sink = 0;
  auto r = interleaved_slices(
               kRounds, kSlices,
               [&](int s) {
                 return seconds([&] {
                   for (int i : slice_of(s)) sink += (*state.get(kKind, ids[static_cast<std::size_t>(i)]))->metadata().id().size();
                 });
               },
               [&](int s) {
                 return seconds([&] {
                   for (int i : slice_of(s)) sink += base.get(ids[static_cast<std::size_t>(i)])->metadata().id().size();
                 });
               })
               .scaled(1e9 / kLookups);
  std::printf("get of one of %d: ours %.1f ns, baseline %.1f ns (medians of %d; sink %zu)\n", kN, r.ours_median(),
              r.baseline_median(), kRounds, sink);
  return report("store.get", r, Target::ratio(1.3));
}

int bench_list1k() {
  constexpr int kN = 1000, kLists = 3000;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  constexpr int kSlices = 20, kPerSlice = kLists / kSlices;
  std::size_t sink = 0;
  auto r = interleaved_slices(
               kRounds, kSlices,
               [&](int) { return seconds([&] { for (int i = 0; i < kPerSlice; ++i) sink += state.list(kKind)->size(); }); },
               [&](int) { return seconds([&] { for (int i = 0; i < kPerSlice; ++i) sink += base.list_sorted().size(); }); })
               .scaled(1e6 / kLists);
  std::printf("list of %d: ours %.1f us, baseline %.1f us (medians of %d; sink %zu)\n", kN, r.ours_median(), r.baseline_median(),
              kRounds, sink);
  return report("store.list1k", r, Target::ratio(1.0));
}

// The next version of every resource, built before the clock starts.
std::vector<ResourcePtr> next_versions(MemoryState& state, int n, char fill) {
  std::vector<ResourcePtr> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto next = (*state.get(kKind.at(id_of(i))))->clone();
    static_cast<TypedResource<Payload>&>(*next).mutable_spec().bytes.assign(100, fill);
    out.push_back(std::move(next));
  }
  return out;
}

// A round updates each of 100k resources three times, in slices of 10k. Each side builds its
// next versions (and the baseline its ids) before each pass, before its clock starts. A round
// spans about three seconds: this machine's memory slows for a second or two at a time, and
// ours, which touches more memory per update than a pointer swap, slows more.
int bench_update() {
  constexpr int kN = 100000, kPasses = 3, kPerPass = 10, kSlices = kPasses * kPerPass, kPerSlice = kN / kPerPass;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  std::vector<std::string> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(id_of(i));
  int builds = 0;
  std::vector<ResourcePtr> next, replacements;
  auto r = interleaved_slices(
               kRounds, kSlices,
               [&](int s) {
                 const int part = s % kPerPass;
                 if (part == 0) next = next_versions(state, kN, static_cast<char>('a' + builds++ % 26));
                 return seconds([&] {
                   for (int i = part * kPerSlice; i < (part + 1) * kPerSlice; ++i) {
                     auto w = state.update(std::move(next[static_cast<std::size_t>(i)]), {kOwner});
                     if (!w.ok()) {
                       std::printf("update failed: %s\n", w.error().to_string().c_str());
                       std::abort();
                     }
                   }
                 });
               },
               [&](int s) {
                 const int part = s % kPerPass;
                 if (part == 0) {
                   replacements.clear();
                   for (int i = 0; i < kN; ++i) replacements.push_back(payload(ids[static_cast<std::size_t>(i)], 'b'));
                 }
                 return seconds([&] {
                   for (int i = part * kPerSlice; i < (part + 1) * kPerSlice; ++i) {
                     base.replace(ids[static_cast<std::size_t>(i)], std::move(replacements[static_cast<std::size_t>(i)]));
                   }
                 });
               })
               .scaled(1e9 / (kN * kPasses));
  std::printf("update of one of %d: ours %.1f ns, baseline %.1f ns (medians of %d)\n", kN, r.ours_median(), r.baseline_median(),
              kRounds);
  return report("store.update", r, Target::ratio(2));
}

// A no-op modify as a controller makes one (ControllerContext::modify<Spec>(metadata, edit)):
// the stored resource read, copied, edited into what it already is, compared, dropped; the new
// resource it would create is made only if the id did not exist (here it always does).
int bench_modify_noop() {
  constexpr int kN = 100000, kOps = 1000000;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  auto order = random_order(kN, kOps);
  std::vector<std::string> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(id_of(i));
  const EditFn same = [](Resource& r) {
    static_cast<TypedResource<Payload>&>(r).mutable_spec().bytes.assign(100, 'x');
    return Status();
  };
  constexpr int kSlices = 10, kPerSlice = kOps / kSlices;
  auto slice_of = [&](int s) {
    return std::span<const int>(order).subspan(static_cast<std::size_t>(s) * kPerSlice, kPerSlice);
  };
  std::size_t sink = 0;
  auto r = interleaved_slices(
               kRounds, kSlices,
               [&](int s) {
                 return seconds([&] {
                   for (int i : slice_of(s)) {
                     const std::string& id = ids[static_cast<std::size_t>(i)];
                     auto m = modify(
                         state, kKind.at(id), [&] { return make_resource(Metadata(kKind.ns, kKind.type, id), Payload{}); },
                         same, {kOwner});
                     sink += (*m)->metadata().version().value();
                   }
                 });
               },
               [&](int s) {
                 return seconds([&] {
                   for (int i : slice_of(s)) sink += (*state.get(kKind.at(ids[static_cast<std::size_t>(i)])))->metadata().version().value();
                 });
               })
               .scaled(1e9 / kOps);
  std::printf("no-op modify of one of %d: %.1f ns; get %.1f ns (medians of %d; sink %zu)\n", kN, r.ours_median(),
              r.baseline_median(), kRounds, sink);
  if ((*state.get(kKind.at(ids[0])))->metadata().version() != Version(1)) {
    std::printf("a no-op modify wrote\n");
    return 1;
  }
  return report("store.modify_noop", r, Target::ratio(2));
}

// 100 kind watchers of 1,000 resources take 20,000 updates, written in bursts of 50; after each
// burst every watcher is drained. One thread does both, so what is measured is the cost of
// delivering (offer, buffer, poll, release), not the scheduler: a consumer spinning on another
// core made rounds swing 5x with lock hand-offs and futex wake-ups. The baseline delivers the
// same events (new and old snapshot, bookmark) into 100 mutex-guarded deques, drained the same
// way, after replacing the stored pointer. Each side sets up anew at the start of a round
// (untimed); the round's writes go in 10 slices of 2,000.
int bench_fanout100() {
  constexpr int kWatchers = 100, kResources = 1000, kWrites = 20000, kBurst = 50, kSlices = 10,
                kPerSlice = kWrites / kSlices;
  const std::size_t expected = static_cast<std::size_t>(kWatchers) * kWrites;

  struct Ours {
    MemoryState state;
    std::vector<WatchPtr> watches;
    std::vector<ResourcePtr> writes;
    std::size_t delivered = 0;
  };
  std::unique_ptr<Ours> ours;
  auto ours_slice = [&](int s) {
    if (s == 0) {
      ours = std::make_unique<Ours>();
      BaselineStore unused;
      fill(ours->state, unused, kResources);
      for (int w = 0; w < kWatchers; ++w) ours->watches.push_back(*ours->state.watch_kind(kKind));
      for (int pass = 0; pass * kResources < kWrites; ++pass) {
        // Versions advance per pass: build each pass's writes from the previous one.
        for (auto& n : next_versions(ours->state, kResources, static_cast<char>('a' + pass % 2))) {
          auto m = n->clone();
          m->mutable_metadata().set_version(Version(static_cast<std::uint64_t>(pass + 1)));
          ours->writes.push_back(std::move(m));
        }
      }
    }
    std::vector<Event> batch;
    double took = seconds([&] {
      for (int i = s * kPerSlice; i < (s + 1) * kPerSlice; i += kBurst) {
        for (int j = i; j < i + kBurst; ++j) {
          auto w = ours->state.update(std::move(ours->writes[static_cast<std::size_t>(j)]), {kOwner});
          if (!w.ok()) {
            std::printf("write failed: %s\n", w.error().to_string().c_str());
            std::abort();
          }
        }
        for (auto& w : ours->watches) {
          ours->delivered += w->poll(batch);
          batch.clear();
        }
      }
    });
    if (s == kSlices - 1 && ours->delivered != expected) {
      std::printf("ours delivered %zu events, not %zu\n", ours->delivered, expected);
      std::abort();
    }
    return took;
  };

  struct Queue {
    std::mutex mu;
    std::deque<Event> events;
  };
  struct Baseline {
    std::vector<Queue> queues = std::vector<Queue>(kWatchers);
    std::mutex store_mu;
    std::vector<ResourcePtr> current, writes;
    std::uint64_t position = 0;
    std::size_t delivered = 0;
  };
  std::unique_ptr<Baseline> base;
  auto baseline_slice = [&](int s) {
    if (s == 0) {
      base = std::make_unique<Baseline>();
      for (int i = 0; i < kResources; ++i) base->current.push_back(payload(id_of(i)));
      for (int i = 0; i < kWrites; ++i) base->writes.push_back(payload(id_of(i % kResources), static_cast<char>('a' + i % 2)));
    }
    std::deque<Event> batch;
    double took = seconds([&] {
      for (int i = s * kPerSlice; i < (s + 1) * kPerSlice; i += kBurst) {
        for (int j = i; j < i + kBurst; ++j) {
          ResourcePtr old;
          {
            std::lock_guard lock(base->store_mu);
            old = std::exchange(base->current[static_cast<std::size_t>(j % kResources)],
                                base->writes[static_cast<std::size_t>(j)]);
          }
          Event e{EventType::kUpdated, std::move(base->writes[static_cast<std::size_t>(j)]), std::move(old),
                  Bookmark(1, ++base->position), nullptr};
          for (auto& q : base->queues) {
            std::lock_guard lock(q.mu);
            q.events.push_back(e);
          }
        }
        for (auto& q : base->queues) {
          {
            std::lock_guard lock(q.mu);
            batch.swap(q.events);
          }
          base->delivered += batch.size();
          batch.clear();
        }
      }
    });
    if (s == kSlices - 1 && base->delivered != expected) {
      std::printf("baseline delivered %zu events, not %zu\n", base->delivered, expected);
      std::abort();
    }
    return took;
  };

  auto r = interleaved_slices(kRounds, kSlices, ours_slice, baseline_slice).scaled(1e3);
  std::printf("%d writes to %d watchers in bursts of %d: ours %.1f ms, baseline %.1f ms (medians of %d)\n", kWrites,
              kWatchers, kBurst, r.ours_median(), r.baseline_median(), kRounds);
  return report("store.fanout100", r, Target::ratio(1.5));
}

std::size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Bytes per resource beyond its 100-byte spec, as the heap sees them.
double ours_bytes_per_resource(int n) {
  malloc_trim(0);
  std::size_t before = heap_in_use();
  double per;
  {
    MemoryState state;
    for (int i = 0; i < n; ++i) (void)state.create(payload(id_of(i)), {kOwner});
    per = static_cast<double>(heap_in_use() - before) / n - 100;
  }
  return per;
}

double baseline_bytes_per_resource(int n) {
  malloc_trim(0);
  std::size_t before = heap_in_use();
  double per;
  {
    BaselineStore base;
    for (int i = 0; i < n; ++i) base.put(id_of(i), payload(id_of(i)));
    per = static_cast<double>(heap_in_use() - before) / n - 100;
  }
  return per;
}

int bench_memory() {
  double ours = 0, baseline = 0;
  for (int n : {10000, 100000, 1000000}) {
    ours = ours_bytes_per_resource(n);
    baseline = baseline_bytes_per_resource(n);
    std::printf("%7d resources: ours %.0f bytes/resource beyond the spec, baseline %.0f\n", n, ours,
                baseline);
  }
  return report("store.memory", ours, baseline, Target::ours(200));
}

}  // namespace
}  // namespace cosi::bench

int main(int argc, char** argv) {
  using namespace cosi::bench;
  std::string name = argc > 1 ? argv[1] : "";
  if (name == "get") return bench_get();
  if (name == "list1k") return bench_list1k();
  if (name == "update") return bench_update();
  if (name == "modify_noop") return bench_modify_noop();
  if (name == "fanout100") return bench_fanout100();
  if (name == "memory") return bench_memory();
  std::fprintf(stderr, "usage: store-bench get|list1k|update|modify_noop|fanout100|memory\n");
  return 2;
}
