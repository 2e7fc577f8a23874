// cosi-plugin-check DIR: loads every plugin in DIR into a runtime on the test harness, writes
// Numbers 3 and 4, and checks that the example plugin's Squarer wrote Squares 9 and 16.
// Prints what it found; exits non-zero when anything is off.
#include <cstdio>

#include "runtime/plugin/loader.h"
#include "runtime/testing/harness.h"
#include "test/support/number_spec.h"

namespace {

using namespace cosi;
using testing::NumberSpec;

const Kind kNumbers{"default", "Numbers.example.cosi.dev"};
const Kind kSquares{"default", "Squares.example.cosi.dev"};

int fail(const std::string& what) {
  std::fprintf(stderr, "cosi-plugin-check: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return fail("usage: cosi-plugin-check PLUGIN_DIR");
  testing::Harness h;
  ResourceTypes types;
  PluginLoader loader({argv[1]}, types);
  auto names = loader.load_all(h.runtime());
  if (!names.ok()) return fail(names.error().to_string());
  for (const auto& n : *names) std::printf("loaded controller %s\n", n.c_str());
  for (auto [id, v] : {std::pair{"three", 3}, std::pair{"four", 4}}) {
    auto put = h.put(make_resource(Metadata(kNumbers.ns, kNumbers.type, id), NumberSpec{v}));
    if (!put.ok()) return fail(put.error().to_string());
  }
  if (auto s = h.start(); !s.ok()) return fail(s.error().to_string());
  for (auto [id, want] : {std::pair{"three", 9}, std::pair{"four", 16}}) {
    auto r = h.store().get(kSquares.at(id));
    if (!r.ok()) return fail(r.error().to_string());
    auto raw = resource_cast<RawSpec>(*r);
    auto value = raw ? SpecTraits<NumberSpec>::decode(raw->spec().proto) : Result<NumberSpec>(Error(ErrorKind::kInternal, "not raw"));
    if (!value.ok() || value->value != want) return fail(std::string("wrong square for ") + id);
    std::printf("%s: square %lld, owner %s\n", id, static_cast<long long>(value->value),
                (*r)->metadata().owner().str().c_str());
  }
  return 0;
}
