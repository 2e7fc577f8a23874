#include "runtime/state/store_metrics.h"

namespace cosi {

void register_store_metrics(metrics::Registry& registry, const MemoryState& state) {
  registry.add_collector([&state](metrics::Registry::Writer& w) {
    for (const auto& [kind, stats] : state.stats()) {
      const std::vector<std::pair<std::string, std::string>> labels{{"namespace", kind.ns.str()},
                                                                    {"type", kind.type.str()}};
      w.gauge("cosi_store_resources", "Resources held per kind", labels, static_cast<double>(stats.resources));
      w.gauge("cosi_store_watchers", "Watches attached per kind", labels, static_cast<double>(stats.watchers));
      w.counter("cosi_store_coalesced_events_total",
                "Events merged for watchers that fell behind, per kind", labels,
                static_cast<double>(stats.coalesced_events));
    }
  });
}

}  // namespace cosi
