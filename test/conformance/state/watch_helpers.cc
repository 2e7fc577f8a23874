#include "test/conformance/state/watch_helpers.h"

#include <atomic>

#include "test/support/test_resources.h"

namespace cosi::testing {

std::vector<Event> drain_until_sentinel(State& state, Watch& watch, const Kind& kind,
                                        Labels labels) {
  static std::atomic<int> counter{0};
  const std::string id = "zz-sentinel-" + std::to_string(counter++);
  Metadata md(kind.ns, kind.type, id);
  md.mutable_labels() = std::move(labels);
  auto created = state.create(make_resource(std::move(md), TestSpec{"sentinel"}), {"sentinel"});
  if (!created.ok()) return {};
  std::vector<Event> before;
  auto deadline = in_seconds(10);
  while (watch.wait(deadline)) {
    std::vector<Event> batch;
    watch.poll(batch);
    for (auto& e : batch) {
      if (e.resource && e.resource->metadata().id() == id) return before;
      before.push_back(std::move(e));
    }
  }
  before.push_back(Event{EventType::kErrored, nullptr, nullptr, std::nullopt, nullptr});
  return before;
}

}  // namespace cosi::testing
