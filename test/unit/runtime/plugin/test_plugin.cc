// A plugin for the loader tests, written as an author would: ordinary controller classes and
// the SDK's macro. Doubler (whole-set) writes Doubled = 2 × each Number; Keeper (per key)
// holds a finalizer on every Number; Crasher throws.
#include <stdexcept>

#include "runtime/controller/context.h"
#include "runtime/plugin/sdk.h"
#include "test/support/number_spec.h"

namespace {

using namespace cosi;
using testing::NumberSpec;

const Kind kNumbers{"default", "Numbers.test.cosi.dev"};
const Kind kDoubled{"default", "Doubleds.test.cosi.dev"};

class Doubler final : public Controller {
 public:
  std::string name() const override { return "Doubler"; }
  std::vector<Input> inputs() const override { return {{kNumbers.ns, kNumbers.type}}; }
  std::vector<Output> outputs() const override { return {{kDoubled.type}}; }
  ReconcileResult reconcile(ControllerContext& ctx) override {
    auto numbers = ctx.list(kNumbers);
    if (!numbers.ok()) return ReconcileResult::retry(numbers.error());
    for (const auto& n : *numbers) {
      std::int64_t twice = 2 * resource_cast<NumberSpec>(n)->spec().value;
      auto w = ctx.modify<NumberSpec>(Metadata(kDoubled.ns, kDoubled.type, n->metadata().id()),
                                      [&](NumberSpec& s) { s.value = twice; });
      if (!w.ok()) return ReconcileResult::retry(w.error());
    }
    ctx.log().info("doubled", {{"count", std::to_string(numbers->size())}});
    return ReconcileResult::done();
  }
};

class Keeper final : public KeyedController {
 public:
  std::string name() const override { return "Keeper"; }
  std::vector<Input> primary_inputs() const override {
    return {{kNumbers.ns, kNumbers.type, std::nullopt, InputKind::kStrong}};
  }
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override {
    auto n = ctx.get(key);
    if (!n.ok()) return ReconcileResult::done();
    auto s = (*n)->metadata().phase() == Phase::kTearingDown ? ctx.remove_finalizer(key) : ctx.add_finalizer(key);
    if (!s.ok()) return ReconcileResult::retry(s.error());
    return ReconcileResult::done();
  }
};

class Crasher final : public Controller {
 public:
  std::string name() const override { return "Crasher"; }
  std::vector<Input> inputs() const override { return {}; }
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext&) override { throw std::logic_error("plugin bug"); }
};

plugin::Definition make_plugin() {
  plugin::Definition d{"test-plugin"};
  d.controllers.push_back(std::make_unique<Doubler>());
  d.controllers.push_back(std::make_unique<Crasher>());
  d.keyed.push_back(std::make_unique<Keeper>());
  d.types.add<NumberSpec>(kNumbers.type);
  d.types.add<NumberSpec>(kDoubled.type);
  return d;
}

}  // namespace

COSI_PLUGIN(make_plugin)
