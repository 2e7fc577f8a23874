#include "runtime/controller/access.h"

#include <catch2/catch.hpp>

namespace cosi {
namespace {

const Kind kMembers{"cluster", "Members.cluster.talos.dev"};
const Kind kSpecs{"etcd", "EtcdSpecs.etcd.talos.dev"};
const Kind kOut{"etcd", "EtcdMembers.etcd.talos.dev"};

AccessRules rules() {
  return AccessRules("EtcdController",
                     {{kMembers.ns, kMembers.type, std::nullopt, InputKind::kStrong},
                      {kSpecs.ns, kSpecs.type, std::string("etcd")}},
                     {{kOut.type}});
}

TEST_CASE("reads need an input or an output", "[access]") {
  auto r = rules();
  CHECK(r.check_read(kMembers.at("any")).ok());
  CHECK(r.check_read(kSpecs.at("etcd")).ok());
  CHECK(r.check_read(kOut.at("local")).ok());
  auto denied = r.check_read(kSpecs.at("other"));
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().kind() == ErrorKind::kPermissionDenied);
  CHECK(denied.error().message() ==
        "controller \"EtcdController\" may not read EtcdSpecs.etcd.talos.dev(etcd/other): it is not "
        "among its inputs or outputs");
}

TEST_CASE("lists need a whole-kind input", "[access]") {
  auto r = rules();
  CHECK(r.check_list(kMembers).ok());
  CHECK(r.check_list(kOut).ok());
  CHECK_THAT(r.check_list(kSpecs).error().message(), Catch::Contains("listing needs an input on the whole kind"));
}

TEST_CASE("writes need an output type; finalizers a strong input", "[access]") {
  auto r = rules();
  CHECK(r.check_write(kOut.at("local")).ok());
  CHECK_THAT(r.check_write(kMembers.at("x")).error().message(),
             Catch::Contains("may not write Members.cluster.talos.dev(cluster/x)"));
  CHECK(r.check_finalizer(kMembers.at("x")).ok());
  CHECK_THAT(r.check_finalizer(kSpecs.at("etcd")).error().message(),
             Catch::Contains("only Strong inputs may carry its finalizers"));
}

}  // namespace
}  // namespace cosi
