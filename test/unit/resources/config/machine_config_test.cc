#include "resources/config/machine_config.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "resources/config/config_diff.h"
#include "resources/config/v1alpha1_schema.h"
#include "runtime/base/base64.h"

using namespace cosi;
using namespace cosi::config;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string read_testdata(const std::string& name) {
  std::ifstream in(std::string(COSI_TESTDATA_DIR) + "/" + name);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string pem(const char* label) {
  return base64_encode(std::string("-----BEGIN ") + label + "-----\nMIIB\n-----END " + label + "-----\n");
}

// A small valid control-plane config; `extra_machine` lands under machine:, `extra_cluster`
// under cluster:.
std::string sample(const std::string& extra_machine = "", const std::string& extra_cluster = "",
                   const std::string& endpoint = "https://127.0.5.10:6443") {
  return "version: v1alpha1\n"
         "machine:\n"
         "  type: controlplane\n"
         "  token: abcdef.0123456789abcdef\n"
         "  ca:\n"
         "    crt: " + pem("CERTIFICATE") + "\n"
         "    key: " + pem("PRIVATE KEY") + "\n" +
         extra_machine +
         "cluster:\n"
         "  clusterName: demo\n"
         "  controlPlane:\n"
         "    endpoint: " + endpoint + "\n"
         "  etcd:\n"
         "    ca:\n"
         "      crt: " + pem("CERTIFICATE") + "\n"
         "      key: " + pem("EC PRIVATE KEY") + "\n" +
         extra_cluster;
}

std::string error_of(const std::string& text) {
  auto r = parse_machine_config(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind() == ErrorKind::kInvalidArgument);
  return r.error().message();
}

}  // namespace

TEST_CASE("the schema table is sorted and has the keys machined acts on", "[config]") {
  auto keys = schema_keys();
  REQUIRE(keys.size() > 300);
  for (size_t i = 1; i < keys.size(); ++i) CHECK(keys[i - 1].path < keys[i].path);
  for (auto path : {"version", "machine.type", "machine.token", "machine.ca.crt", "machine.certSANs",
                    "machine.network.interfaces[].vip.ip", "machine.features.kubePrism.port",
                    "cluster.controlPlane.endpoint", "cluster.discovery.registries.service.endpoint",
                    "cluster.etcd.advertisedSubnets", "cluster.etcd.extraArgs"}) {
    INFO(path);
    CHECK(find_schema_key(path) != nullptr);
  }
  CHECK(find_schema_key("machine.kubelet.extraArgs")->shape == KeyShape::kScalarMap);
  CHECK(find_schema_key("machine.nonsense") == nullptr);
}

TEST_CASE("a small config reads into the fields machined acts on", "[config]") {
  auto r = parse_machine_config(sample(
      "  certSANs: [cp.example.org, 10.0.0.9]\n"
      "  network:\n"
      "    hostname: cp-1\n"
      "    interfaces:\n"
      "      - interface: eth0\n"
      "        addresses: [10.5.0.2/24, fd00::2/64]\n"
      "        vip:\n"
      "          ip: 10.5.0.100\n"
      "      - deviceSelector:\n"
      "          hardwareAddr: '00:11:22:*'\n"
      "  features:\n"
      "    kubePrism:\n"
      "      enabled: true\n"
      "      port: 7446\n",
      "  id: aWQ=\n"
      "  secret: MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n"
      "  discovery:\n"
      "    enabled: true\n"
      "    registries:\n"
      "      service:\n"
      "        endpoint: http://127.0.5.1:3000\n"));
  REQUIRE(r.ok());
  const MachineConfig& c = r->config;
  CHECK(r->warnings.empty());
  CHECK(c.type == MachineType::kControlPlane);
  CHECK(c.token == "abcdef.0123456789abcdef");
  CHECK_THAT(c.ca.crt, StartsWith("-----BEGIN CERTIFICATE-----"));
  CHECK_THAT(c.ca.key, StartsWith("-----BEGIN PRIVATE KEY-----"));
  CHECK(c.cert_sans == std::vector<std::string>{"cp.example.org", "10.0.0.9"});
  CHECK(c.hostname == "cp-1");
  REQUIRE(c.interfaces.size() == 2);
  CHECK(c.interfaces[0].name == "eth0");
  CHECK(c.interfaces[0].addresses == std::vector<std::string>{"10.5.0.2/24", "fd00::2/64"});
  CHECK(c.interfaces[0].vip == "10.5.0.100");
  CHECK(c.interfaces[1].device_selector.at("hardwareAddr") == "00:11:22:*");
  CHECK(c.kubeprism_enabled);
  CHECK(c.kubeprism_port == 7446);
  CHECK(c.cluster_name == "demo");
  CHECK(c.cluster_id == "aWQ=");
  CHECK(c.control_plane_endpoint.host == "127.0.5.10");
  CHECK(c.control_plane_endpoint.port == 6443);
  CHECK(c.discovery_enabled);
  CHECK(c.discovery_service_endpoint == "http://127.0.5.1:3000");
  CHECK_THAT(c.etcd.ca.key, StartsWith("-----BEGIN EC PRIVATE KEY-----"));
}

TEST_CASE("the cluster secret keys discovery: 32 bytes, and needed with a discovery endpoint", "[config]") {
  CHECK(error_of(sample("", "  secret: c2VjcmV0\n")) ==
        "line 16: cluster.secret: must be the base64 of 32 bytes (it keys discovery's AES-256)");
  CHECK_THAT(error_of(sample("", "  id: aWQ=\n  discovery:\n    enabled: true\n    registries:\n      service:\n"
                                 "        endpoint: http://127.0.5.1:3000\n")),
             Contains("cluster.discovery: the service registry needs cluster.id and cluster.secret"));
}

TEST_CASE("defaults: KubePrism off on port 7445, no discovery endpoint", "[config]") {
  auto r = parse_machine_config(sample());
  REQUIRE(r.ok());
  CHECK_FALSE(r->config.kubeprism_enabled);
  CHECK(r->config.kubeprism_port == 7445);
  CHECK(r->config.discovery_service_endpoint.empty());
  CHECK(r->config.control_plane_endpoint.port == 6443);
}

TEST_CASE("a config written by talosctl gen config loads, with one warning per ignored key", "[config]") {
  auto cp = parse_machine_config(read_testdata("talosctl-controlplane.yaml"));
  REQUIRE(cp.ok());
  CHECK(cp->config.type == MachineType::kControlPlane);
  CHECK(cp->config.cluster_name == "my-cluster");
  CHECK(cp->config.control_plane_endpoint.host == "192.168.64.15");
  CHECK(cp->config.kubeprism_enabled);
  CHECK(cp->config.discovery_enabled);
  CHECK_THAT(cp->config.ca.key, StartsWith("-----BEGIN ED25519 PRIVATE KEY-----"));
  // machine.kubelet, machine.install, cluster.network, cluster.apiServer... each once, by path.
  bool kubelet = false, api_server = false, admission = false;
  for (const auto& w : cp->warnings) {
    kubelet = kubelet || w.find(": machine.kubelet: ") != std::string::npos;
    api_server = api_server || w.find(": cluster.apiServer: ") != std::string::npos;
    admission = admission || w.find("admissionControl") != std::string::npos;  // under an ignored key: no warning of its own
  }
  CHECK(kubelet);
  CHECK(api_server);
  CHECK_FALSE(admission);
  CHECK_THAT(cp->warnings.front(), StartsWith("line "));

  auto worker = parse_machine_config(read_testdata("talosctl-worker.yaml"));
  REQUIRE(worker.ok());
  CHECK(worker->config.type == MachineType::kWorker);
  CHECK(worker->config.ca.key.empty());
  CHECK_FALSE(worker->config.ca.crt.empty());
}

TEST_CASE("a key Talos does not define is an error naming its path and line", "[config]") {
  CHECK(error_of(sample("  kubelet:\n    imagez: x\n")) ==
        "line 9: machine.kubelet.imagez: unknown key: Talos's v1alpha1 schema does not define it");
  CHECK_THAT(error_of(sample("", "  nonsense: 1\n")), Contains("cluster.nonsense: unknown key"));
  CHECK_THAT(error_of(sample("  network:\n    interfaces:\n      - interface: eth0\n        mtuu: 1500\n")),
             Contains("machine.network.interfaces[0].mtuu: unknown key"));
  CHECK_THAT(error_of("version: v1alpha1\nfoo: bar\n"), StartsWith("line 2: foo: unknown key"));
}

TEST_CASE("values of the wrong type or shape name the path", "[config]") {
  CHECK(error_of(sample("  features:\n    kubePrism:\n      enabled: maybe\n")) ==
        "line 10: machine.features.kubePrism.enabled: expected true or false, got \"maybe\"");
  CHECK_THAT(error_of(sample("  features:\n    kubePrism:\n      port: 70000\n")),
             Contains("machine.features.kubePrism.port: expected a port number 1..65535"));
  CHECK_THAT(error_of(sample("  network: [a, b]\n")), Contains("machine.network: expected a mapping, got a sequence"));
  CHECK_THAT(error_of(sample("  certSANs: {a: b}\n")), Contains("machine.certSANs: expected a sequence"));
  CHECK_THAT(error_of(sample("  network:\n    interfaces:\n      - interface: eth0\n        addresses: [10.0.0.300/24]\n")),
             Contains("machine.network.interfaces[0].addresses[0]: \"10.0.0.300/24\" is not a CIDR"));
  CHECK_THAT(error_of(sample("  network:\n    interfaces:\n      - interface: eth0\n        vip:\n          ip: 10.5\n")),
             Contains("machine.network.interfaces[0].vip.ip: \"10.5\" is not an IP address"));
  CHECK_THAT(error_of(sample("  network:\n    hostname: -bad-\n")), Contains("machine.network.hostname: \"-bad-\" is not a valid hostname"));
  CHECK_THAT(error_of(sample("  network:\n    interfaces:\n      - addresses: [10.0.0.1/24]\n")),
             Contains("exactly one of interface and deviceSelector"));
}

TEST_CASE("the control-plane endpoint must be an https URL", "[config]") {
  CHECK_THAT(error_of(sample("", "", "not a url")),
             Contains("cluster.controlPlane.endpoint: \"not a url\" is not a valid URL"));
  CHECK_THAT(error_of(sample("", "", "https://127.0.5.10:99999")), Contains("the port must be 1..65535"));
  CHECK_THAT(error_of(sample("", "", "http://127.0.5.10:6443")), Contains("must be an https URL"));
  CHECK_THAT(error_of(sample("", "", "https://:6443")), Contains("no host"));
  auto v6 = parse_url("https://[fd00::1]:6443/path");
  REQUIRE(v6.ok());
  CHECK(v6->host == "fd00::1");
  CHECK(v6->port == 6443);
}

TEST_CASE("required keys and their reasons", "[config]") {
  CHECK_THAT(error_of("version: v1alpha2\nmachine: {}\ncluster: {}\n"), StartsWith("line 1: version: expected v1alpha1, got \"v1alpha2\""));
  CHECK_THAT(error_of("version: v1alpha1\ncluster: {}\n"), Contains("machine: missing"));
  std::string no_key = sample();
  no_key.erase(no_key.find("    key: "), no_key.find('\n', no_key.find("    key: ")) - no_key.find("    key: ") + 1);
  CHECK_THAT(error_of(no_key), Contains("machine.ca.key: missing"));
  CHECK_THAT(error_of(sample("", "", "https://a.example:443").replace(sample().find("controlplane"), 12, "router")),
             Contains("machine.type: expected controlplane or worker, got \"router\""));
}

TEST_CASE("broken YAML, duplicate keys and non-base64 PEMs are errors with a line", "[config]") {
  CHECK_THAT(error_of("version: v1alpha1\nmachine: [\n"), StartsWith("line "));
  CHECK_THAT(error_of("version: v1alpha1\nmachine: [\n"), Contains("not valid YAML"));
  CHECK_THAT(error_of(sample("  certSANs: []\n  certSANs: []\n")), Contains("machine.certSANs: defined twice"));
  std::string bad_ca = sample();
  bad_ca.replace(bad_ca.find(pem("CERTIFICATE")), pem("CERTIFICATE").size(), "not-base64!");
  CHECK(error_of(bad_ca) == "line 6: machine.ca.crt: is not base64");
  CHECK_THAT(error_of("- a\n- b\n"), Contains("expected a mapping, got a sequence"));
  CHECK_THAT(error_of(""), Contains("no v1alpha1 document"));
}

TEST_CASE("other documents are reported, not acted on", "[config]") {
  auto r = parse_machine_config(sample() + "---\napiVersion: v1alpha1\nkind: HostnameConfig\nhostname: x\n");
  REQUIRE(r.ok());
  REQUIRE(r->warnings.size() == 1);
  CHECK_THAT(r->warnings[0], Contains("document of kind \"HostnameConfig\" is not acted on"));
  CHECK_THAT(error_of(sample() + "---\n" + sample()), Contains("a second v1alpha1 document"));
}

TEST_CASE("describe_changes lists changed leaves and hides secrets", "[config]") {
  auto changes = describe_changes(sample("  network:\n    hostname: a\n"),
                                  sample("  network:\n    hostname: b\n  certSANs: [x]\n").replace(
                                      sample().find("abcdef.0123456789abcdef"), 23, "zzzzzz.0123456789abcdef"));
  REQUIRE(changes.size() == 3);
  CHECK(changes[0] == "+ machine.certSANs[0]: \"x\"");
  CHECK(changes[1] == "~ machine.network.hostname: \"a\" -> \"b\"");
  CHECK(changes[2] == "~ machine.token: (secret) -> (secret)");
  CHECK(describe_changes(sample(), sample()).empty());
}

TEST_CASE("alias bombs are refused, not expanded", "[config]") {
  // 400 interfaces, each with the same 400 VLANs: small text, 160,000 values to walk.
  std::string vlans = "vlans: [&v {vlanId: 1}";
  for (int i = 1; i < 400; ++i) vlans += ", *v";
  std::string interfaces = "    interfaces: [&i {interface: eth0, " + vlans + "]}";
  for (int i = 1; i < 400; ++i) interfaces += ", *i";
  auto r = parse_machine_config(sample("  network:\n" + interfaces + "]\n"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message(), Contains("too large"));

  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  auto d = describe_changes("", bomb);
  CHECK(d.size() <= 100001);
  CHECK(d.back() == "+ ~: (too large to compare)");
}
