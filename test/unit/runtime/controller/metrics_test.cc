#include "runtime/metrics/registry.h"

#include <catch2/catch.hpp>

namespace cosi::metrics {
namespace {

TEST_CASE("metrics render in the Prometheus text format", "[metrics]") {
  Registry r;
  r.counter("jobs_total", "Jobs done.", {"controller", "result"}).at({"A", "success"}).inc(2);
  r.gauge("depth", "Queue depth.", {"name"}).at({"we\"ird\\name"}).set(3);
  auto& h = r.histogram("took_seconds", "Time.", {"controller"}, {0.1, 1});
  h.at({"A"}).observe(0.05);
  h.at({"A"}).observe(0.5);
  h.at({"A"}).observe(5);
  r.add_collector([](Registry::Writer& w) { w.gauge("store_resources", "Resources.", {{"type", "T"}}, 7); });

  const std::string text = r.render();
  CHECK(text ==
        "# HELP depth Queue depth.\n"
        "# TYPE depth gauge\n"
        "depth{name=\"we\\\"ird\\\\name\"} 3\n"
        "# HELP jobs_total Jobs done.\n"
        "# TYPE jobs_total counter\n"
        "jobs_total{controller=\"A\",result=\"success\"} 2\n"
        "# HELP store_resources Resources.\n"
        "# TYPE store_resources gauge\n"
        "store_resources{type=\"T\"} 7\n"
        "# HELP took_seconds Time.\n"
        "# TYPE took_seconds histogram\n"
        "took_seconds_bucket{controller=\"A\",le=\"0.1\"} 1\n"
        "took_seconds_bucket{controller=\"A\",le=\"1\"} 2\n"
        "took_seconds_bucket{controller=\"A\",le=\"+Inf\"} 3\n"
        "took_seconds_sum{controller=\"A\"} 5.55\n"
        "took_seconds_count{controller=\"A\"} 3\n");
}

}  // namespace
}  // namespace cosi::metrics
