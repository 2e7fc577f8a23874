// An example plugin: Squarer reads every Number and writes its Square. The controller is
// written exactly as an in-tree one; the SDK's macro makes the .so a plugin.
#include "example.pb.h"
#include "runtime/controller/context.h"
#include "runtime/plugin/sdk.h"

namespace example {

struct Number {
  std::int64_t value = 0;
  friend bool operator==(const Number&, const Number&) = default;
};

}  // namespace example

// The spec crosses the ABI as its protobuf message.
template <>
struct cosi::SpecTraits<::example::Number> {
  static bool equal(const ::example::Number& a, const ::example::Number& b) { return a == b; }
  static std::string encode(const ::example::Number& n) {
    cosi::example::NumberSpec m;
    m.set_value(n.value);
    return m.SerializeAsString();
  }
  static cosi::Result<::example::Number> decode(std::string_view bytes) {
    cosi::example::NumberSpec m;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return cosi::Error(cosi::ErrorKind::kInvalidArgument, "not a cosi.example.NumberSpec");
    }
    return ::example::Number{m.value()};
  }
  static std::string yaml(const ::example::Number& n) { return "value: " + std::to_string(n.value) + "\n"; }
};

namespace example {

const cosi::Kind kNumbers{"default", "Numbers.example.cosi.dev"};
const cosi::Kind kSquares{"default", "Squares.example.cosi.dev"};

class Squarer final : public cosi::Controller {
 public:
  std::string name() const override { return "Squarer"; }
  std::vector<cosi::Input> inputs() const override { return {{kNumbers.ns, kNumbers.type}}; }
  std::vector<cosi::Output> outputs() const override { return {{kSquares.type}}; }

  cosi::ReconcileResult reconcile(cosi::ControllerContext& ctx) override {
    auto numbers = ctx.list(kNumbers);
    if (!numbers.ok()) return cosi::ReconcileResult::retry(numbers.error());
    for (const auto& n : *numbers) {
      auto typed = cosi::resource_cast<Number>(n);
      if (!typed) continue;
      const std::int64_t square = typed->spec().value * typed->spec().value;
      auto written = ctx.modify<Number>(cosi::Metadata(kSquares.ns, kSquares.type, n->metadata().id()),
                                        [&](Number& s) { s.value = square; });
      if (!written.ok()) return cosi::ReconcileResult::retry(written.error());
    }
    return cosi::ReconcileResult::done();
  }
};

cosi::plugin::Definition make_plugin() {
  cosi::plugin::Definition d{"example"};
  d.controllers.push_back(std::make_unique<Squarer>());
  d.types.add<Number>(kNumbers.type);
  d.types.add<Number>(kSquares.type);
  return d;
}

}  // namespace example

COSI_PLUGIN(example::make_plugin)
