#include "runtime/resource/meta/resource_definition.h"

#include <catch2/catch.hpp>

#include "runtime/resource/meta/inflection.h"
#include "runtime/resource/meta/namespace.h"

namespace cosi {
namespace {

using Strings = std::vector<std::string>;

TEST_CASE("a single-word type gets its singular alias", "[rd]") {
  auto spec = make_definition({.type = "Members.cluster.talos.dev",
                               .default_namespace = "cluster",
                               .print_columns = {{"Hostname", "{.hostname}"}}});
  REQUIRE(spec.ok());
  CHECK(spec->display_type == "Member");
  CHECK(spec->id() == "members.cluster.talos.dev");
  CHECK(spec->aliases == Strings{"member"});
  CHECK(spec->all_aliases ==
        Strings{"members", "members.cluster", "members.cluster.talos", "member"});
  CHECK(spec->print_columns.size() == 1);
}

TEST_CASE("a multi-word type gets initials", "[rd]") {
  auto em = make_definition({.type = "EtcdMembers.etcd.talos.dev", .default_namespace = "etcd"});
  REQUIRE(em.ok());
  CHECK(em->display_type == "EtcdMember");
  CHECK(em->aliases == Strings{"etcdmember", "em", "ems"});
  CHECK(em->all_aliases ==
        Strings{"etcdmembers", "etcdmembers.etcd", "etcdmembers.etcd.talos", "etcdmember", "em", "ems"});

  auto rd = resource_definition_definition();
  CHECK(rd.display_type == "ResourceDefinition");
  CHECK(rd.id() == "resourcedefinitions.meta.cosi.dev");
  CHECK(rd.default_namespace == "meta");

  // Initials ending in S get no extra s.
  auto ks = make_definition({.type = "KubeSpans.kubespan.talos.dev"});
  CHECK(ks->aliases == Strings{"kubespan", "ks"});
}

TEST_CASE("the meta types are defined as COSI defines them", "[rd]") {
  auto rd = resource_definition_definition();
  CHECK(rd.aliases == Strings{"api-resources", "resourcedefinition", "rd", "rds"});
  CHECK(rd.all_aliases == Strings{"resourcedefinitions", "resourcedefinitions.meta", "resourcedefinitions.meta.cosi",
                                  "api-resources", "resourcedefinition", "rd", "rds"});
  REQUIRE(rd.print_columns.size() == 1);
  CHECK(rd.print_columns[0].name == "Aliases");
  CHECK(rd.print_columns[0].json_path == "{.aliases[:]}");
  CHECK(rd.sensitivity == Sensitivity::kNonSensitive);

  auto ns = namespace_definition();
  CHECK(ns.type == "Namespaces.meta.cosi.dev");
  CHECK(ns.default_namespace == "meta");
  CHECK(ns.print_columns.empty());
}

TEST_CASE("explicit aliases come first", "[rd]") {
  auto ns = namespace_definition();
  CHECK(ns.aliases == Strings{"ns", "namespace"});
  CHECK(ns.all_aliases == Strings{"namespaces", "namespaces.meta", "namespaces.meta.cosi", "ns", "namespace"});
}

TEST_CASE("plurals of Talos type names", "[rd]") {
  CHECK(inflection::singular("Identities") == "Identity");
  CHECK(inflection::singular("AddressStatuses") == "AddressStatus");
  CHECK(inflection::singular("Addresses") == "Address");
  CHECK(inflection::singular("Infos") == "Info");
  CHECK(inflection::singular("KubePrismEndpoints") == "KubePrismEndpoint");
  CHECK_FALSE(inflection::is_plural("Status"));
  CHECK_FALSE(inflection::is_plural("Address"));
  CHECK_FALSE(inflection::is_plural("Test"));
}

TEST_CASE("bad type names are refused with the rule they break", "[rd]") {
  auto error = [](std::string type) {
    auto r = make_definition({.type = type});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == ErrorKind::kInvalidArgument);
    CHECK(r.error().message().find(type) != std::string::npos);
    return r.error().message();
  };
  CHECK_THAT(error(""), Catch::Contains("missing suffix"));
  CHECK_THAT(error("."), Catch::Contains("name is empty"));
  CHECK_THAT(error("Tests."), Catch::Contains("suffix is empty"));
  CHECK_THAT(error("tests.cosi.dev"), Catch::Contains("CamelCase"));
  CHECK_THAT(error("1Tests.cosi.dev"), Catch::Contains("name doesn't match"));
  CHECK_THAT(error("Tests.cosi_dev"), Catch::Contains("suffix doesn't match"));
  CHECK_THAT(error("Tests.cosi..dev"), Catch::Contains("suffix doesn't match"));
  CHECK_THAT(error("Test.cosi.dev"), Catch::Contains("plural"));
}

TEST_CASE("definition and namespace resources live in meta", "[rd]") {
  auto rd = make_definition_resource(namespace_definition());
  CHECK(rd->metadata().pointer() ==
        Kind{"meta", "ResourceDefinitions.meta.cosi.dev"}.at("namespaces.meta.cosi.dev"));
  auto ns = make_namespace("cluster", "Cluster membership.");
  CHECK(ns->metadata().pointer() == Kind{"meta", "Namespaces.meta.cosi.dev"}.at("cluster"));
  CHECK(ns->spec().description == "Cluster membership.");
}

}  // namespace
}  // namespace cosi
