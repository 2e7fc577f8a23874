// machined as a real process on its own addresses (127.8.0.0/16), driven by cosictl and by a
// GrpcState on its trusted socket. The cosictl output checked here is what talosctl prints.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include <sstream>

#include <filesystem>
#include <regex>

#include "api/state_client.h"
#include "resources/catalog.h"
#include "resources/cluster/cluster_resources.h"
#include "test/support/http_get.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using resources::MemberSpec;

std::string binary(const char* env) {
  const char* path = std::getenv(env);
  REQUIRE(path != nullptr);
  return path;
}

// One machined on `ip`, with its state in a fresh directory.
class Node {
 public:
  explicit Node(std::string ip, std::string hostname)
      : ip_(std::move(ip)), dir_(std::filesystem::temp_directory_path() / ("cosi-machined-" + ip_ + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir_);
    process_ = std::make_unique<Process>(std::vector<std::string>{
        binary("COSI_MACHINED"), "--insecure-dev", "--listen", ip_ + ":50000", "--state-dir", dir_.string(),
        "--hostname", hostname, "--metrics-listen", ip_ + ":9100"});
    auto ready = process_->wait_for_line("machined ready", in_seconds(15));
    REQUIRE(ready.has_value());
    resources::register_types(types_);
    trusted_ = std::make_unique<api::GrpcState>(
        grpc::CreateChannel("unix:" + (dir_ / "machined.sock").string(), grpc::InsecureChannelCredentials()), types_);
  }
  ~Node() {
    trusted_.reset();
    CHECK(process_->stop() == 0);
    std::filesystem::remove_all(dir_);
  }

  const std::string& ip() const { return ip_; }
  State& trusted() { return *trusted_; }

  RunResult cosictl(std::vector<std::string> args) {
    std::vector<std::string> argv{binary("COSI_COSICTL"), "-e", ip_, "-n", ip_};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, in_seconds(20));
  }

  ResourcePtr member(const std::string& name, const std::string& address, int type) {
    MemberSpec spec;
    spec.set_node_id("id-" + name);
    std::string bytes(4, '\0');
    inet_pton(AF_INET, address.c_str(), bytes.data());
    spec.add_addresses()->set_ip(bytes);
    spec.set_hostname(name);
    spec.set_machine_type(static_cast<::talos::resource::definitions::enums::MachineType>(type));
    spec.set_operating_system("cosi (v0.1.0)");
    return make_resource(Metadata(resources::kClusterNamespace, resources::kMemberType, name), spec);
  }

 private:
  std::string ip_;
  std::filesystem::path dir_;
  std::unique_ptr<Process> process_;
  ResourceTypes types_;
  std::unique_ptr<api::GrpcState> trusted_;
};

TEST_CASE("cosictl reads machined in every output mode", "[machined]") {
  Node node("127.8.0.1", "node-a");
  REQUIRE(node.trusted().create(node.member("cp-1", "127.8.0.1", 2), {"test"}).ok());
  REQUIRE(node.trusted().create(node.member("worker-1", "127.8.0.2", 3), {"test"}).ok());

  auto version = node.cosictl({"version"});
  CHECK(version.status == 0);
  CHECK_THAT(version.out, Catch::Contains("\tNODE:        127.8.0.1\n\tTag:         v0.1.0\n"));

  auto rd = node.cosictl({"get", "rd"});
  CHECK(rd.status == 0);
  CHECK_THAT(rd.out, Catch::StartsWith("NODE        NAMESPACE   TYPE                 ID"));
  CHECK_THAT(rd.out, Catch::Contains("members.cluster.talos.dev"));
  // COSI's definition of ResourceDefinitions: the alias api-resources, the aliases as a column.
  auto line_with = [&](const std::string& id) {
    std::istringstream lines(rd.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.find(" " + id + " ") != std::string::npos) return line;
    }
    return std::string();
  };
  CHECK_THAT(rd.out.substr(0, rd.out.find('\n')), Catch::Matches("NODE +NAMESPACE +TYPE +ID +VERSION +ALIASES"));
  CHECK_THAT(line_with("resourcedefinitions.meta.cosi.dev"),
             Catch::Matches("127\\.8\\.0\\.1 +meta +ResourceDefinition +resourcedefinitions\\.meta\\.cosi\\.dev +1 +"
                            "api-resources resourcedefinition rd rds"));
  CHECK_THAT(line_with("members.cluster.talos.dev"),
             Catch::Matches("127\\.8\\.0\\.1 +meta +ResourceDefinition +members\\.cluster\\.talos\\.dev +1 +member"));
  auto api_resources = node.cosictl({"get", "api-resources"});
  CHECK(api_resources.status == 0);
  CHECK(api_resources.out == rd.out);

  auto table = node.cosictl({"get", "members"});
  CHECK(table.status == 0);
  CHECK(table.out ==
        "NODE        NAMESPACE   TYPE     ID         VERSION   HOSTNAME   MACHINE TYPE   OS              ADDRESSES\n"
        "127.8.0.1   cluster     Member   cp-1       1         cp-1       controlplane   cosi (v0.1.0)   [\"127.8.0.1\"]\n"
        "127.8.0.1   cluster     Member   worker-1   1         worker-1   worker         cosi (v0.1.0)   [\"127.8.0.2\"]\n");

  auto yaml = node.cosictl({"get", "members", "-o", "yaml"});
  CHECK(yaml.status == 0);
  auto docs = YAML::LoadAll(yaml.out);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["node"].as<std::string>() == "127.8.0.1");
  CHECK(docs[0]["metadata"]["type"].as<std::string>() == "Members.cluster.talos.dev");
  CHECK(docs[0]["metadata"]["owner"].as<std::string>() == "test");
  CHECK(docs[0]["metadata"]["version"].as<int>() == 1);
  CHECK(docs[1]["spec"]["machineType"].as<std::string>() == "worker");
  CHECK(docs[1]["spec"]["addresses"][0].as<std::string>() == "127.8.0.2");
  CHECK_THAT(yaml.out, Catch::Contains("\n---\nnode: 127.8.0.1\nmetadata:\n    namespace: cluster\n"));

  auto json = node.cosictl({"get", "member", "cp-1", "-o", "json"});
  CHECK(json.status == 0);
  auto doc = YAML::Load(json.out);  // JSON is YAML
  CHECK(doc["spec"]["hostname"].as<std::string>() == "cp-1");
  CHECK(doc["spec"]["controlPlane"].IsDefined() == false);
  CHECK_THAT(json.out, Catch::StartsWith("{\n    \"metadata\": {\n"));

  auto identity = node.cosictl({"get", "hostnamestatus"});
  CHECK_THAT(identity.out, Catch::Contains("hostname   1         node-a"));
}

TEST_CASE("unknown and ambiguous aliases are one clear line and a non-zero exit", "[machined]") {
  Node node("127.8.0.3", "node-b");
  auto unknown = node.cosictl({"get", "flowers"});
  CHECK(unknown.status == 1);
  CHECK(unknown.out.empty());
  CHECK(unknown.err == "cosictl: resource type \"flowers\" is not known to 127.8.0.3 (cosictl get rd lists the types it serves)\n");

  // A second type whose singular is "address" makes the alias ambiguous.
  auto extra = make_definition({.type = "Addresses.test.cosi.dev", .default_namespace = "network"});
  REQUIRE(extra.ok());
  REQUIRE(node.trusted().create(make_definition_resource(*extra), {kMetaOwner}).ok());
  auto ambiguous = node.cosictl({"get", "address"});
  CHECK(ambiguous.status == 1);
  CHECK(ambiguous.err ==
        "cosictl: resource type \"address\" is ambiguous: it matches AddressStatuses.net.talos.dev, "
        "Addresses.test.cosi.dev\n");  // sorted by type

  auto unreachable = run({binary("COSI_COSICTL"), "-e", "127.8.0.250", "--timeout", "2", "get", "members"}, in_seconds(20));
  CHECK(unreachable.status == 1);
  CHECK_THAT(unreachable.err, Catch::StartsWith("cosictl: cannot reach 127.8.0.250:50000"));
}

TEST_CASE("get -w shows + and - as members come and go", "[machined]") {
  Node node("127.8.0.4", "node-c");
  REQUIRE(node.trusted().create(node.member("cp-1", "127.8.0.4", 2), {"test"}).ok());
  Process watch({binary("COSI_COSICTL"), "-e", node.ip(), "-n", node.ip(), "get", "members", "-w"});
  auto header = watch.read_line(in_seconds(10));
  REQUIRE(header);
  CHECK_THAT(*header, Catch::StartsWith("NODE        *   NAMESPACE   TYPE     ID"));
  auto first = watch.read_line(in_seconds(10));
  REQUIRE(first);
  CHECK_THAT(*first, Catch::StartsWith("127.8.0.4   +   cluster     Member   cp-1"));

  REQUIRE(node.trusted().create(node.member("worker-9", "127.8.0.9", 3), {"test"}).ok());
  std::optional<std::string> line;
  do {
    line = watch.read_line(in_seconds(10));
  } while (line && line->rfind("127.8.0.4", 0) != 0);  // skip the repeated header
  REQUIRE(line);
  CHECK(std::regex_search(*line, std::regex("^127\\.8\\.0\\.4 +\\+ +cluster +Member +worker-9 +1 +worker-9 +worker")));

  auto current = *node.trusted().get(Kind{resources::kClusterNamespace, resources::kMemberType}.at("worker-9"));
  auto renamed = current->clone();
  static_cast<TypedResource<MemberSpec>&>(*renamed).mutable_spec().set_hostname("worker-nine");
  REQUIRE(node.trusted().update(std::move(renamed), {"test"}).ok());
  do {
    line = watch.read_line(in_seconds(10));
  } while (line && line->rfind("127.8.0.4", 0) != 0);
  REQUIRE(line);
  CHECK(std::regex_search(*line, std::regex("^127\\.8\\.0\\.4 {7}cluster +Member +worker-9 +2 +worker-nine")));

  REQUIRE(node.trusted().destroy(Kind{resources::kClusterNamespace, resources::kMemberType}.at("worker-9"), {"test"}).ok());
  do {
    line = watch.read_line(in_seconds(10));
  } while (line && line->rfind("127.8.0.4", 0) != 0);
  REQUIRE(line);
  CHECK(std::regex_search(*line, std::regex("^127\\.8\\.0\\.4 +- +cluster +Member +worker-9 +2 +worker-nine")));
  watch.kill_now();
}

TEST_CASE("/metrics is the Prometheus text format; /healthz and /readyz answer", "[machined]") {
  Node node("127.8.0.5", "node-d");
  std::string metrics = http_get(node.ip(), 9100, "/metrics");
  REQUIRE_THAT(metrics, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
  std::string body = metrics.substr(metrics.find("\r\n\r\n") + 4);
  const std::regex sample(R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.]+([eE][-+]?[0-9]+)?|[-+]Inf|NaN)$)");
  const std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
  std::size_t samples = 0;
  std::size_t start = 0;
  while (start < body.size()) {
    auto end = body.find('\n', start);
    std::string line = body.substr(start, end - start);
    INFO(line);
    CHECK((std::regex_match(line, sample) || std::regex_match(line, comment)));
    if (line[0] != '#') ++samples;
    start = end + 1;
  }
  CHECK(samples > 10);
  CHECK_THAT(body, Catch::Contains("controller_runtime_reconcile_total{controller=\"network.NodeIdentityController\",result=\"success\"} 1\n"));
  CHECK_THAT(body, Catch::Contains("cosi_store_resources{namespace=\"meta\",type=\"ResourceDefinitions.meta.cosi.dev\"}"));
  CHECK_THAT(http_get(node.ip(), 9100, "/healthz"), Catch::EndsWith("\r\n\r\nok\n"));
  CHECK_THAT(http_get(node.ip(), 9100, "/readyz"), Catch::EndsWith("\r\n\r\nready\n"));
  CHECK_THAT(http_get(node.ip(), 9100, "/nope"), Catch::StartsWith("HTTP/1.1 404"));
}

TEST_CASE("machined refuses plaintext on a non-loopback address", "[machined]") {
  auto r = run({binary("COSI_MACHINED"), "--insecure-dev", "--listen", "192.0.2.1:50000", "--state-dir", "/tmp/cosi-never"},
               in_seconds(10));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--insecure-dev serves plaintext gRPC and is refused unless every listen address is loopback"));
  auto bad_flag = run({binary("COSI_MACHINED"), "--listne", "x"}, in_seconds(10));
  CHECK(bad_flag.status == 2);
  CHECK_THAT(bad_flag.err, Catch::StartsWith("machined: unknown flag --listne"));
}

TEST_CASE("machined: a node that owns its host or shares it, not both; the VIP lease in whole seconds, at least 2; a known KubePrism check", "[machined]") {
  auto both = run({binary("COSI_MACHINED"), "--host-network", "--node-ip", "127.8.0.9", "--state-dir", "/tmp/cosi-never"}, in_seconds(10));
  CHECK(both.status == 2);
  CHECK_THAT(both.err, Catch::Contains("--host-network reads the node's addresses from its links; --node-ip"));
  auto wildcard = run({binary("COSI_MACHINED"), "--listen", "0.0.0.0:50000", "--state-dir", "/tmp/cosi-never"}, in_seconds(10));
  CHECK(wildcard.status == 2);
  CHECK_THAT(wildcard.err, Catch::Contains("--listen is a wildcard"));
  for (const char* ttl : {"1s", "2500ms", "soon"}) {
    auto short_lease = run({binary("COSI_MACHINED"), "--listen", "127.8.0.9:50000", "--vip-lease-ttl", ttl, "--state-dir", "/tmp/cosi-never"},
                           in_seconds(10));
    CHECK(short_lease.status == 2);
    CHECK_THAT(short_lease.err, Catch::Contains("--vip-lease-ttl"));
  }
  auto check = run({binary("COSI_MACHINED"), "--listen", "127.8.0.9:50000", "--kubeprism-health-check", "http", "--state-dir", "/tmp/cosi-never"},
                   in_seconds(10));
  CHECK(check.status == 2);
  CHECK_THAT(check.err, Catch::Contains("--kubeprism-health-check \"http\" is neither tcp nor https-readyz"));
  CHECK_FALSE(std::filesystem::exists("/tmp/cosi-never"));
}

}  // namespace
}  // namespace cosi::testing
