#include "runtime/proto/resource_codec.h"

#include <catch2/catch.hpp>

#include "runtime/resource/meta/namespace.h"
#include "runtime/resource/meta/resource_definition.h"
#include "runtime/resource/tombstone.h"

namespace cosi {
namespace {

TEST_CASE("every metadata field survives the round trip", "[codec]") {
  Metadata md("cluster", "Namespaces.meta.cosi.dev", "n1");
  md.set_version(Version(7));
  md.set_owner("NamespaceController");
  md.set_phase(Phase::kTearingDown);
  md.set_created(Timestamp(std::chrono::seconds(1700000000) + std::chrono::microseconds(123456)));
  md.set_updated(Timestamp(std::chrono::seconds(1700000100)));
  md.mutable_labels().set("role", "cp");
  md.mutable_annotations().set("note", "x y");
  md.mutable_finalizers().add("a");
  md.mutable_finalizers().add("b");
  auto r = make_resource(md, NamespaceSpec{"Cluster membership."});

  cosi::resource::Resource msg;
  REQUIRE(encode_resource(*r, &msg).ok());
  CHECK(msg.metadata().version() == "7");
  CHECK(msg.metadata().phase() == "tearingDown");
  CHECK(msg.metadata().created().seconds() == 1700000000);
  CHECK(msg.metadata().created().nanos() == 123456000);
  CHECK(msg.spec().yaml_spec() == "description: \"Cluster membership.\"\n");

  ResourceTypes types;
  auto back = decode_resource(msg, types);
  REQUIRE(back.ok());
  const Metadata& b = (*back)->metadata();
  CHECK(b.pointer() == md.pointer());
  CHECK(b.version() == Version(7));
  CHECK(b.owner() == Atom("NamespaceController"));
  CHECK(b.phase() == Phase::kTearingDown);
  CHECK(b.created() == md.created());
  CHECK(b.updated() == md.updated());
  CHECK(b.labels() == md.labels());
  CHECK(b.annotations() == md.annotations());
  CHECK(b.finalizers() == md.finalizers());
  auto ns = resource_cast<NamespaceSpec>(ResourcePtr(*back));
  REQUIRE(ns);
  CHECK(ns->spec().description == "Cluster membership.");
}

TEST_CASE("a resource definition decodes into its typed spec", "[codec]") {
  auto rd = make_definition_resource(namespace_definition());
  cosi::resource::Resource msg;
  REQUIRE(encode_resource(*rd, &msg).ok());
  ResourceTypes types;
  auto back = decode_resource(msg, types);
  REQUIRE(back.ok());
  auto typed = resource_cast<ResourceDefinitionSpec>(ResourcePtr(*back));
  REQUIRE(typed);
  CHECK(typed->spec() == namespace_definition());
  CHECK_THAT(msg.spec().yaml_spec(), Catch::Contains("displayType: Namespace\n"));
}

TEST_CASE("unknown types decode raw, bytes kept", "[codec]") {
  cosi::resource::Resource msg;
  msg.mutable_metadata()->set_namespace_("x");
  msg.mutable_metadata()->set_type("Unknowns.test.dev");
  msg.mutable_metadata()->set_id("u");
  msg.mutable_metadata()->set_version("undefined");
  msg.mutable_spec()->set_proto_spec(std::string("\x0a\x01z", 3));
  msg.mutable_spec()->set_yaml_spec("value: z\n");
  auto back = decode_resource(msg, ResourceTypes());
  REQUIRE(back.ok());
  auto raw = resource_cast<RawSpec>(ResourcePtr(*back));
  REQUIRE(raw);
  CHECK(raw->spec().proto == std::string("\x0a\x01z", 3));
  cosi::resource::Resource again;
  REQUIRE(encode_resource(**back, &again).ok());
  CHECK(again.spec().SerializeAsString() == msg.spec().SerializeAsString());
}

TEST_CASE("bad metadata is refused naming the field", "[codec]") {
  cosi::resource::Resource msg;
  msg.mutable_metadata()->set_namespace_("x");
  msg.mutable_metadata()->set_type("Unknowns.test.dev");
  msg.mutable_metadata()->set_id("u");
  msg.mutable_metadata()->set_version("seven");
  auto bad_version = decode_resource(msg, ResourceTypes());
  REQUIRE_FALSE(bad_version.ok());
  CHECK(bad_version.error().message() ==
        "Unknowns.test.dev(x/u): metadata.version \"seven\" is not a version");
  msg.mutable_metadata()->set_version("1");
  msg.mutable_metadata()->set_phase("paused");
  CHECK_THAT(decode_resource(msg, ResourceTypes()).error().message(),
             Catch::Contains("metadata.phase \"paused\""));

  msg.mutable_metadata()->set_phase("running");
  msg.mutable_metadata()->set_type("Namespaces.meta.cosi.dev");
  msg.mutable_spec()->set_proto_spec("\xff\xff\xff");
  CHECK_THAT(decode_resource(msg, ResourceTypes()).error().message(),
             Catch::Contains("not a valid cosi.resource.meta.NamespaceSpec"));
}

TEST_CASE("tombstones and specs without an encoding", "[codec]") {
  cosi::resource::Resource msg;
  REQUIRE(encode_resource(*make_tombstone(Kind{"ns", "Things.test.dev"}.at("")), &msg).ok());
  CHECK(msg.has_spec());
  CHECK(msg.spec().proto_spec().empty());
  struct Plain {
    int x;
    bool operator==(const Plain&) const = default;
  };
  auto plain = make_resource(Metadata("ns", "Plains.test.dev", "p"), Plain{1});
  CHECK(encode_resource(*plain, &msg).error().kind() == ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace cosi

#include "runtime/proto/yaml_render.h"

namespace cosi {
namespace {

TEST_CASE("YAML scalars are quoted exactly when a reader would take them for something else", "[yaml]") {
  for (const char* plain : {"cp-1", "172.20.0.2", "0a1b2c3d4e5f6071", "Talos (v1.4.8)", "a:b", "x#y", "-x"}) {
    CHECK(yaml_scalar(plain) == plain);
  }
  CHECK(yaml_scalar("") == "\"\"");
  CHECK(yaml_scalar("50") == "\"50\"");
  CHECK(yaml_scalar("0x1F") == "\"0x1F\"");
  CHECK(yaml_scalar("1.5e3") == "\"1.5e3\"");
  CHECK(yaml_scalar("true") == "\"true\"");
  CHECK(yaml_scalar("null") == "\"null\"");
  CHECK(yaml_scalar("a: b") == "\"a: b\"");
  CHECK(yaml_scalar("- x") == "\"- x\"");
  CHECK(yaml_scalar("say \"hi\"\n") == "\"say \\\"hi\\\"\\n\"");
}

}  // namespace
}  // namespace cosi
