// The plugin loader: a real shared object built with the SDK, loaded into a runtime on the
// test harness; and every way loading can be refused.
#include "runtime/plugin/loader.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "runtime/testing/harness.h"
#include "test/support/number_spec.h"

namespace cosi::testing {
namespace {

const Kind kNumbers{"default", "Numbers.test.cosi.dev"};
const Kind kDoubled{"default", "Doubleds.test.cosi.dev"};

std::filesystem::path plugin_dir() {
  const char* dir = std::getenv("COSI_TEST_PLUGIN_DIR");
  REQUIRE(dir != nullptr);
  return dir;
}

MutableResourcePtr number(const std::string& id, std::int64_t v) {
  return make_resource(Metadata(kNumbers.ns, kNumbers.type, id), NumberSpec{v});
}

TEST_CASE("a plugin's controllers run like in-tree ones", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir()}, types);
  auto names = loader.load(plugin_dir() / "test-plugin.so", h.runtime());
  INFO((names.ok() ? "" : names.error().to_string()));
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"Doubler", "Crasher", "Keeper"});
  REQUIRE(h.put(number("a", 21)).ok());
  REQUIRE(h.start().ok());

  // Outputs cross back as bytes the host does not know: kept raw, owned by the plugin controller.
  REQUIRE(h.expect(kDoubled.at("a"), [](const ResourcePtr& r) {
             auto raw = resource_cast<RawSpec>(r);
             return raw && SpecTraits<NumberSpec>::decode(raw->spec().proto)->value == 42 &&
                    r->metadata().owner() == Atom("Doubler");
           }).ok());
  // The per-key controller holds finalizers on the inputs it was given as Strong.
  REQUIRE(h.expect(kNumbers.at("a"), [](const ResourcePtr& r) { return r->metadata().finalizers().has("Keeper"); }).ok());

  REQUIRE(h.put(number("a", 5)).ok());
  CHECK(h.expect(kDoubled.at("a"), [](const ResourcePtr& r) {
           return SpecTraits<NumberSpec>::decode(resource_cast<RawSpec>(r)->spec().proto)->value == 10;
         }).ok());

  // Teardown: the keeper lets go, the owner destroys, the doubler's output goes with it.
  REQUIRE(h.remove(kNumbers.at("a")).ok());
  CHECK(h.expect_absent(kNumbers.at("a")).ok());
  CHECK(h.expect_absent(kDoubled.at("a")).ok());

  const std::string metrics = h.runtime().metrics().render();
  CHECK_THAT(metrics, Catch::Contains("controller_runtime_reconcile_panics_total{controller=\"Crasher\"} 1"));
  bool logged = false;
  for (const auto& r : h.logs()) {
    if (r.message == "doubled count=1") logged = true;
  }
  CHECK(logged);
}

TEST_CASE("a controller name already taken is refused", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir()}, types);
  REQUIRE(loader.load(plugin_dir() / "test-plugin.so", h.runtime()).ok());
  auto again = loader.load(plugin_dir() / "test-plugin.so", h.runtime());
  REQUIRE_FALSE(again.ok());
  CHECK_THAT(again.error().message(), Catch::Contains("test-plugin.so: controller name \"Doubler\" is already taken"));
}

TEST_CASE("plugins load only from the configured directories", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir() / "elsewhere"}, types);
  auto r = loader.load(plugin_dir() / "test-plugin.so", h.runtime());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind() == ErrorKind::kPermissionDenied);
  CHECK_THAT(r.error().message(), Catch::Contains("not inside a configured plugin directory"));
}

TEST_CASE("a shared object without the entry point is refused", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir()}, types);
  auto r = loader.load(plugin_dir() / "no-entry-plugin.so", h.runtime());
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("has no symbol cosi_plugin_entry"));
}

TEST_CASE("a plugin built for another ABI is refused", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir()}, types);
  auto r = loader.load(plugin_dir() / "future-abi-plugin.so", h.runtime());
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("built for plugin ABI 2.0; this host speaks 1.0"));
}

TEST_CASE("a missing file is a clear error", "[plugin]") {
  Harness h;
  ResourceTypes types;
  PluginLoader loader({plugin_dir()}, types);
  auto r = loader.load(plugin_dir() / "absent.so", h.runtime());
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Catch::Contains("absent.so: cannot be read"));
}

}  // namespace
}  // namespace cosi::testing
