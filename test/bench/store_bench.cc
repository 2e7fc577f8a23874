// Store benchmarks (`meson test --benchmark` in a release build). Usage: store-bench <name>
// with name one of get, list1k, update, modify_noop, fanout100, memory. Each prints its
// measurements, then one BENCH line comparing MemoryState with BaselineStore (or, for
// modify_noop, with MemoryState's own get) measured in the same run.
#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
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

// Both sides get the same input: the id. Ours takes it with the kind it belongs to.
int bench_get() {
  constexpr int kN = 100000, kLookups = 2000000;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  auto order = random_order(kN, kLookups);
  std::vector<std::string> ids;
  for (int i = 0; i < kN; ++i) ids.push_back(id_of(i));
  std::size_t sink = 0;
  auto r = interleaved(
               kRounds,
               [&] {
                 return seconds([&] {
                   for (int i : order) sink += (*state.get(kKind, ids[static_cast<std::size_t>(i)]))->metadata().id().size();
                 });
               },
               [&] {
                 return seconds([&] {
                   for (int i : order) sink += base.get(ids[static_cast<std::size_t>(i)])->metadata().id().size();
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
  std::size_t sink = 0;
  auto r = interleaved(
               kRounds, [&] { return seconds([&] { for (int i = 0; i < kLists; ++i) sink += state.list(kKind)->size(); }); },
               [&] { return seconds([&] { for (int i = 0; i < kLists; ++i) sink += base.list_sorted().size(); }); })
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

int bench_update() {
  constexpr int kN = 100000;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  Rounds r;
  for (int round = 0; round < kRounds; ++round) {
    const char fill_char = static_cast<char>('a' + round % 26);
    auto next = next_versions(state, kN, fill_char);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kN; ++i) {
      auto r = state.update(std::move(next[static_cast<std::size_t>(i)]), {kOwner});
      if (!r.ok()) return std::printf("update failed: %s\n", r.error().to_string().c_str()), 1;
    }
    r.ours.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e9 / kN);

    std::vector<ResourcePtr> replacements;
    for (int i = 0; i < kN; ++i) replacements.push_back(payload(id_of(i), fill_char));
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < kN; ++i) {
      base.replace(id_of(i), std::move(replacements[static_cast<std::size_t>(i)]));
    }
    r.baseline.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e9 / kN);
  }
  std::printf("update of one of %d: ours %.1f ns, baseline %.1f ns (medians of %d)\n", kN, r.ours_median(), r.baseline_median(),
              kRounds);
  return report("store.update", r, Target::ratio(2));
}

int bench_modify_noop() {
  constexpr int kN = 100000, kOps = 1000000;
  MemoryState state;
  BaselineStore base;
  fill(state, base, kN);
  auto order = random_order(kN, kOps);
  std::vector<std::string> ids;
  std::vector<MutableResourcePtr> fresh;
  for (int i = 0; i < kN; ++i) {
    ids.push_back(id_of(i));
    fresh.push_back(payload(id_of(i)));
  }
  const EditFn same = [](Resource& r) {
    static_cast<TypedResource<Payload>&>(r).mutable_spec().bytes.assign(100, 'x');
    return Status();
  };
  std::size_t sink = 0;
  auto r = interleaved(
               kRounds,
               [&] {
                 return seconds([&] {
                   for (int i : order) {
                     auto m = modify(state, fresh[static_cast<std::size_t>(i)], same, {kOwner});
                     sink += (*m)->metadata().version().value();
                   }
                 });
               },
               [&] {
                 return seconds([&] {
                   for (int i : order) sink += (*state.get(kKind.at(ids[static_cast<std::size_t>(i)])))->metadata().version().value();
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
// way, after replacing the stored pointer.
int bench_fanout100() {
  constexpr int kWatchers = 100, kResources = 1000, kWrites = 20000, kBurst = 50;
  const std::size_t expected = static_cast<std::size_t>(kWatchers) * kWrites;

  auto run_ours = [&] {
    MemoryState state;
    BaselineStore unused;
    fill(state, unused, kResources);
    std::vector<WatchPtr> watches;
    for (int w = 0; w < kWatchers; ++w) watches.push_back(*state.watch_kind(kKind));
    std::vector<ResourcePtr> writes;
    for (int round = 0; round * kResources < kWrites; ++round) {
      auto next = next_versions(state, kResources, static_cast<char>('a' + round % 2));
      // Versions advance per round: build each round's writes from the previous round.
      for (auto& n : next) {
        auto m = n->clone();
        m->mutable_metadata().set_version(Version(static_cast<std::uint64_t>(round + 1)));
        writes.push_back(std::move(m));
      }
    }
    std::size_t delivered = 0;
    std::vector<Event> batch;
    double took = seconds([&] {
      for (int i = 0; i < kWrites; i += kBurst) {
        for (int j = i; j < i + kBurst; ++j) {
          auto r = state.update(std::move(writes[static_cast<std::size_t>(j)]), {kOwner});
          if (!r.ok()) {
            std::printf("write failed: %s\n", r.error().to_string().c_str());
            std::abort();
          }
        }
        for (auto& w : watches) {
          delivered += w->poll(batch);
          batch.clear();
        }
      }
    });
    if (delivered != expected) {
      std::printf("ours delivered %zu events, not %zu\n", delivered, expected);
      std::abort();
    }
    return took;
  };

  auto run_baseline = [&] {
    struct Queue {
      std::mutex mu;
      std::deque<Event> events;
    };
    std::vector<Queue> queues(kWatchers);
    std::vector<ResourcePtr> current;
    for (int i = 0; i < kResources; ++i) current.push_back(payload(id_of(i)));
    std::vector<ResourcePtr> writes;
    for (int i = 0; i < kWrites; ++i) writes.push_back(payload(id_of(i % kResources), static_cast<char>('a' + i % 2)));
    std::mutex store_mu;
    std::uint64_t position = 0;
    std::size_t delivered = 0;
    std::deque<Event> batch;
    double took = seconds([&] {
      for (int i = 0; i < kWrites; i += kBurst) {
        for (int j = i; j < i + kBurst; ++j) {
          ResourcePtr old;
          {
            std::lock_guard lock(store_mu);
            old = std::exchange(current[static_cast<std::size_t>(j % kResources)], writes[static_cast<std::size_t>(j)]);
          }
          Event e{EventType::kUpdated, std::move(writes[static_cast<std::size_t>(j)]), std::move(old),
                  Bookmark(1, ++position), nullptr};
          for (auto& q : queues) {
            std::lock_guard lock(q.mu);
            q.events.push_back(e);
          }
        }
        for (auto& q : queues) {
          {
            std::lock_guard lock(q.mu);
            batch.swap(q.events);
          }
          delivered += batch.size();
          batch.clear();
        }
      }
    });
    if (delivered != expected) {
      std::printf("baseline delivered %zu events, not %zu\n", delivered, expected);
      std::abort();
    }
    return took;
  };

  auto r = interleaved(kRounds, run_ours, run_baseline).scaled(1e3);
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
