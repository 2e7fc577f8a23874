// GreetingController: for every Name, a Greeting that says hello to it.
#include "runtime/controller/context.h"
#include "runtime/controller/controller.h"

struct NameSpec {
  std::string name;
  friend bool operator==(const NameSpec&, const NameSpec&) = default;
};
struct GreetingSpec {
  std::string text;
  friend bool operator==(const GreetingSpec&, const GreetingSpec&) = default;
};

inline const cosi::Kind kNames{"default", "Names.example.cosi.dev"};
inline const cosi::Kind kGreetings{"default", "Greetings.example.cosi.dev"};

class GreetingController final : public cosi::Controller {
 public:
  std::string name() const override { return "GreetingController"; }
  std::vector<cosi::Input> inputs() const override { return {{kNames.ns, kNames.type}}; }
  std::vector<cosi::Output> outputs() const override { return {{kGreetings.type}}; }

  cosi::ReconcileResult reconcile(cosi::ControllerContext& ctx) override {
    auto names = ctx.list(kNames);
    if (!names.ok()) return cosi::ReconcileResult::retry(names.error());
    for (const auto& r : *names) {
      const std::string text = "Hello, " + cosi::resource_cast<NameSpec>(r)->spec().name + "!";
      auto written = ctx.modify<GreetingSpec>(
          cosi::Metadata(kGreetings.ns, kGreetings.type, r->metadata().id()),
          [&](GreetingSpec& greeting) { greeting.text = text; });
      if (!written.ok()) return cosi::ReconcileResult::retry(written.error());
    }
    // Greetings not written in this pass (their Name is gone) are destroyed by the runtime.
    return cosi::ReconcileResult::done();
  }
};
