#include <catch2/catch.hpp>

#include "api/auth/authenticator.h"
#include "api/auth/roles.h"

using namespace cosi;
using namespace cosi::api::auth;
using Catch::Matchers::Contains;

namespace {

struct Pki {
  pki::PrivateKey ca_key = pki::PrivateKey::ed25519();
  pki::Certificate ca = pki::Certificate::self_signed_ca(ca_key, {"talos"}, pki::kYear);

  std::string client(std::vector<std::string> roles, pki::Usage usage = pki::Usage::kClient,
                     std::chrono::seconds backdate = std::chrono::seconds(0)) const {
    auto key = pki::PrivateKey::ed25519();
    return pki::Certificate::issue(ca, ca_key, key.get(),
                                   {.common_name = "someone", .organizations = std::move(roles), .usage = usage,
                                    .validity = pki::kDay, .backdate = backdate})
        ->pem();
  }
};

const auto kNow = [] { return std::chrono::system_clock::now(); };

}  // namespace

TEST_CASE("the role table: reads for readers, etcd reads for etcd:backup, the rest for admins", "[auth]") {
  const Roles reader{Role::kReader}, operator_{Role::kOperator}, admin{Role::kAdmin}, backup{Role::kEtcdBackup};
  for (auto m : {"/cosi.resource.State/Get", "/cosi.resource.State/List", "/cosi.resource.State/Watch",
                 "/machine.MachineService/Version", "/machine.MachineService/EtcdStatus",
                 "/machine.MachineService/EtcdMemberList", "/machine.MachineService/EtcdAlarmList",
                 "/machine.MachineService/ServiceList"}) {
    INFO(m);
    CHECK(allowed(reader, m));
    CHECK(allowed(operator_, m));
    CHECK(allowed(admin, m));
  }
  CHECK(allowed(backup, "/machine.MachineService/EtcdStatus"));
  CHECK_FALSE(allowed(backup, "/cosi.resource.State/Get"));
  CHECK(allowed(backup, "/machine.MachineService/EtcdSnapshot"));
  CHECK_FALSE(allowed(reader, "/machine.MachineService/EtcdSnapshot"));
  CHECK(allowed(operator_, "/machine.MachineService/EtcdDefragment"));
  CHECK(allowed(operator_, "/machine.MachineService/EtcdAlarmDisarm"));
  CHECK_FALSE(allowed(reader, "/machine.MachineService/EtcdDefragment"));
  for (auto m : {"/machine.MachineService/ServiceStart", "/machine.MachineService/ServiceStop",
                 "/machine.MachineService/ServiceRestart"}) {
    INFO(m);
    CHECK(allowed(operator_, m));
    CHECK(allowed(admin, m));
    CHECK_FALSE(allowed(reader, m));
  }
  for (auto m : {"/machine.MachineService/Bootstrap", "/machine.MachineService/ApplyConfiguration",
                 "/machine.MachineService/EtcdLeaveCluster", "/machine.MachineService/EtcdRemoveMemberByID",
                 "/machine.MachineService/EtcdForfeitLeadership", "/machine.MachineService/EtcdRecover",
                 "/machine.MachineService/Reset", "/cosi.resource.State/Create", "/some.Unlisted/Method"}) {
    INFO(m);
    CHECK_FALSE(allowed(operator_, m));
    CHECK_FALSE(allowed(reader, m));
    CHECK(allowed(admin, m));
  }
  CHECK_FALSE(allowed(Roles{Role::kImpersonator}, "/cosi.resource.State/Get"));
  CHECK(may_read_sensitive(admin));
  CHECK_FALSE(may_read_sensitive(operator_));
}

TEST_CASE("roles parse from names, ignoring what is not a role, and print back", "[auth]") {
  auto r = parse_roles(std::vector<std::string>{"os:reader", "talos", "os:etcd:backup"});
  CHECK(r.has(Role::kReader));
  CHECK(r.has(Role::kEtcdBackup));
  CHECK_FALSE(r.has(Role::kAdmin));
  CHECK(r.to_string() == "os:reader,os:etcd:backup");
  CHECK(parse_roles(r.to_string()) == r);
  CHECK(parse_roles(std::string_view("")).empty());
  CHECK(describe(Roles{Role::kAdmin, Role::kOperator}) == "os:admin or os:operator");
}

TEST_CASE("mutual TLS: roles come from a client certificate of the OS CA", "[auth]") {
  Pki pki;
  auto auth = Authenticator::mutual_tls(pki.ca);
  auto caller = auth.authenticate(pki.client({"os:operator"}), {}, kNow());
  REQUIRE(caller.ok());
  CHECK(caller->roles == Roles{Role::kOperator});
  CHECK(caller->name == "someone");
  CHECK_FALSE(caller->forwarded);
}

TEST_CASE("mutual TLS refuses what is not a valid client certificate, saying why", "[auth]") {
  Pki pki;
  Pki other;
  auto auth = Authenticator::mutual_tls(pki.ca);
  auto expect = [&](Result<Caller> r, ErrorKind kind, const std::string& text) {
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind() == kind);
    CHECK_THAT(r.error().message(), Contains(text));
  };
  expect(auth.authenticate("", {}, kNow()), ErrorKind::kUnauthenticated, "no client certificate");
  expect(auth.authenticate(other.client({"os:admin"}), {}, kNow()), ErrorKind::kUnauthenticated, "not signed by this cluster's OS CA");
  expect(auth.authenticate(pki.client({"os:admin"}, pki::Usage::kClient, 2 * pki::kDay), {}, kNow()),
         ErrorKind::kUnauthenticated, "expired");
  expect(auth.authenticate(pki.client({"os:admin"}, pki::Usage::kServer), {}, kNow()), ErrorKind::kUnauthenticated,
         "extended key usage");
  expect(auth.authenticate(pki.client({"os:admin"}, pki::Usage::kServerAndClient), {}, kNow()), ErrorKind::kUnauthenticated,
         "extended key usage");
  expect(auth.authenticate("not a certificate", {}, kNow()), ErrorKind::kUnauthenticated, "cannot be read");
  expect(auth.authenticate(pki.client({"developers"}), {}, kNow()), ErrorKind::kPermissionDenied, "no role");
}

TEST_CASE("talos-role is honoured for impersonators only", "[auth]") {
  Pki pki;
  auto auth = Authenticator::mutual_tls(pki.ca);
  auto forwarded = auth.authenticate(pki.client({"os:impersonator"}), {"os:reader"}, kNow());
  REQUIRE(forwarded.ok());
  CHECK(forwarded->roles == Roles{Role::kReader});
  CHECK(forwarded->forwarded);
  // A reader cannot promote itself by sending the metadata.
  auto reader = auth.authenticate(pki.client({"os:reader"}), {"os:admin"}, kNow());
  REQUIRE(reader.ok());
  CHECK(reader->roles == Roles{Role::kReader});
}

TEST_CASE("maintenance makes every caller a reader; insecure-dev an admin", "[auth]") {
  auto m = Authenticator::maintenance().authenticate("", {"os:admin"}, kNow());
  REQUIRE(m.ok());
  CHECK(m->roles == Roles{Role::kReader});
  CHECK(Authenticator::maintenance().is_maintenance());
  auto d = Authenticator::insecure_dev().authenticate("", {}, kNow());
  REQUIRE(d.ok());
  CHECK(d->roles == Roles{Role::kAdmin});
}
