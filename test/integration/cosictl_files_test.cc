// cosictl's local commands, run as the binary: gen secrets, gen config (secrets, patches,
// output types, refusing to overwrite), machineconfig patch, and the talosconfig edits
// (merge, endpoint, node, context, contexts, info) with talosctl's lookup order.
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cmd/cosictl/talosconfig.h"
#include "resources/config/machine_config.h"
#include "resources/secrets/secrets_bundle.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  explicit Dir(const std::string& name) : path(fs::temp_directory_path() / ("cosi-cosictl-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult cosictl(std::vector<std::string> args, std::vector<std::string> env = {}) {
  const char* bin = std::getenv("COSI_COSICTL");
  REQUIRE(bin != nullptr);
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(bin);
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, in_seconds(60));
}

}  // namespace

TEST_CASE("gen secrets writes a bundle gen config can use, and refuses to overwrite", "[cosictl]") {
  Dir d("secrets");
  auto r = cosictl({"gen", "secrets", "-o", d / "secrets.yaml"});
  REQUIRE(r.status == 0);
  CHECK(fs::status(d / "secrets.yaml").permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  auto bundle = pki::SecretsBundle::parse(slurp(d / "secrets.yaml"));
  REQUIRE(bundle.ok());
  auto again = cosictl({"gen", "secrets", "-o", d / "secrets.yaml"});
  CHECK(again.status != 0);
  CHECK_THAT(again.err, Contains("already exists; use --force"));

  REQUIRE(cosictl({"gen", "config", "--with-secrets", d / "secrets.yaml", "demo", "https://127.0.5.10:6443", "-o", d.path.string()}).status == 0);
  auto cp = config::parse_machine_config(slurp(d / "controlplane.yaml"));
  REQUIRE(cp.ok());
  CHECK(cp->warnings.empty());
  CHECK(cp->config.type == config::MachineType::kControlPlane);
  CHECK(cp->config.ca.crt == bundle->os.crt);
  CHECK(cp->config.ca.key == bundle->os.key);
  CHECK(cp->config.token == bundle->trustd_token);
  CHECK(cp->config.cluster_id == bundle->cluster_id);
  CHECK(cp->config.etcd.ca.crt == bundle->etcd.crt);
  CHECK_FALSE(cp->config.discovery_enabled);  // no endpoint given: no discovery, nothing dialled
  auto worker = config::parse_machine_config(slurp(d / "worker.yaml"));
  REQUIRE(worker.ok());
  CHECK(worker->config.type == config::MachineType::kWorker);
  CHECK(worker->config.ca.key.empty());
  CHECK(slurp(d / "worker.yaml").find(bundle->etcd.key) == std::string::npos);
  auto tc = cosictl::parse_talosconfig(slurp(d / "talosconfig"));
  REQUIRE(tc.ok());
  CHECK(tc->context == "demo");
  CHECK(tc->contexts.at("demo").endpoints == std::vector<std::string>{"127.0.5.10"});
  CHECK(tc->contexts.at("demo").ca == bundle->os.crt);
  auto admin = pki::Certificate::parse(tc->contexts.at("demo").crt);
  REQUIRE(admin.ok());
  CHECK(admin->organizations() == std::vector<std::string>{"os:admin"});
  CHECK(admin->client_auth_only());
}

TEST_CASE("gen config applies patches, writes the types asked for, and checks its inputs", "[cosictl]") {
  Dir d("gen");
  std::ofstream(d / "cp.patch") << "machine:\n  network:\n    hostname: cp-1\n";
  auto r = cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "-o", d.path.string(),
                    "--config-patch", "machine:\n  certSANs: [10.9.9.9]\n",
                    "--config-patch-control-plane", "@" + (d / "cp.patch"),
                    "--config-patch-worker", "machine:\n  network:\n    hostname: w-1\n",
                    "--discovery-endpoint", "http://127.0.5.1:3000"});
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Contains("generating PKI and tokens"));
  auto cp = config::parse_machine_config(slurp(d / "controlplane.yaml"));
  REQUIRE(cp.ok());
  CHECK(cp->config.hostname == "cp-1");
  CHECK(cp->config.cert_sans == std::vector<std::string>{"10.9.9.9"});
  CHECK(cp->config.discovery_enabled);
  CHECK(cp->config.discovery_service_endpoint == "http://127.0.5.1:3000");
  auto worker = config::parse_machine_config(slurp(d / "worker.yaml"));
  REQUIRE(worker.ok());
  CHECK(worker->config.hostname == "w-1");

  auto one = cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "--output-types", "worker", "-o", d / "w1.yaml"});
  REQUIRE(one.status == 0);
  CHECK(fs::exists(d / "w1.yaml"));

  auto bad_endpoint = cosictl({"gen", "config", "demo", "127.0.5.10:6443", "-o", d / "x"});
  CHECK(bad_endpoint.status != 0);
  CHECK_THAT(bad_endpoint.err, Contains("must be an https URL"));
  auto bad_patch = cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "-o", d / "y", "--config-patch", "machine:\n  nonsense: 1\n"});
  CHECK(bad_patch.status != 0);
  CHECK_THAT(bad_patch.err, Contains("machine.nonsense: unknown key"));
  CHECK_FALSE(fs::exists(d / "y"));  // nothing written when anything is wrong
  auto bad_type = cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "--output-types", "router"});
  CHECK(bad_type.status != 0);
  CHECK_THAT(bad_type.err, Contains("\"router\" is not one of controlplane, worker, talosconfig"));
}

TEST_CASE("machineconfig patch merges strategically into a new file", "[cosictl]") {
  Dir d("patch");
  REQUIRE(cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "-o", d.path.string(), "--output-types", "worker"}).status == 0);
  std::ofstream(d / "w1.patch") << "machine:\n  network:\n    hostname: worker1\n";
  auto r = cosictl({"machineconfig", "patch", d / "worker.yaml", "--patch", "@" + (d / "w1.patch"), "-o", d / "worker1.yaml"});
  REQUIRE(r.status == 0);
  auto patched = config::parse_machine_config(slurp(d / "worker1.yaml"));
  REQUIRE(patched.ok());
  CHECK(patched->config.hostname == "worker1");
  auto to_stdout = cosictl({"machineconfig", "patch", d / "worker.yaml", "--patch", "cluster:\n  clusterName: other\n"});
  REQUIRE(to_stdout.status == 0);
  CHECK_THAT(to_stdout.out, Contains("clusterName: other"));
  auto missing = cosictl({"machineconfig", "patch", d / "worker.yaml", "--patch", "@" + (d / "nope.patch")});
  CHECK(missing.status != 0);
  CHECK_THAT(missing.err, Contains("nope.patch does not exist"));
}

TEST_CASE("config merge, endpoint, node, context, contexts and info edit the talosconfig", "[cosictl]") {
  Dir d("talosconfig");
  REQUIRE(cosictl({"gen", "config", "demo", "https://127.0.5.10:6443", "-o", d.path.string(), "--output-types", "talosconfig"}).status == 0);
  const std::string home = d / "home";
  const std::vector<std::string> env{"HOME=" + home, "TALOSCONFIG="};
  // Merging into ~/.talos/config creates it; merging again renames the clash.
  auto merged = cosictl({"config", "merge", d / "talosconfig"}, env);
  REQUIRE(merged.status == 0);
  CHECK_THAT(merged.out, Contains("added context \"demo\""));
  auto clash = cosictl({"config", "merge", d / "talosconfig"}, env);
  REQUIRE(clash.status == 0);
  CHECK_THAT(clash.out, Contains("renamed context \"demo\" to \"demo-1\""));
  auto file = cosictl::load_talosconfig(home + "/.talos/config");
  REQUIRE(file.ok());
  CHECK(file->context == "demo-1");
  CHECK(file->contexts.size() == 2);

  REQUIRE(cosictl({"config", "endpoint", "127.0.5.10", "127.0.5.11"}, env).status == 0);
  REQUIRE(cosictl({"config", "node", "127.0.5.12"}, env).status == 0);
  REQUIRE(cosictl({"config", "context", "demo"}, env).status == 0);
  file = cosictl::load_talosconfig(home + "/.talos/config");
  CHECK(file->context == "demo");
  CHECK(file->contexts.at("demo-1").endpoints == std::vector<std::string>{"127.0.5.10", "127.0.5.11"});
  CHECK(file->contexts.at("demo-1").nodes == std::vector<std::string>{"127.0.5.12"});
  auto contexts = cosictl({"config", "contexts"}, env);
  REQUIRE(contexts.status == 0);
  CHECK_THAT(contexts.out, Contains("CURRENT   NAME"));
  CHECK_THAT(contexts.out, Contains("*         demo "));
  CHECK_THAT(contexts.out, Contains("127.0.5.10, 127.0.5.11"));
  auto info = cosictl({"config", "info"}, env);
  REQUIRE(info.status == 0);
  CHECK_THAT(info.out, Contains("Roles:               os:admin"));

  // $TALOSCONFIG comes before ~/.talos/config; --talosconfig before both.
  auto via_env = cosictl({"config", "contexts"}, {"HOME=" + home, "TALOSCONFIG=" + (d / "talosconfig")});
  CHECK(via_env.status == 0);
  CHECK_THAT(via_env.out, !Contains("demo-1"));
  auto unknown = cosictl({"config", "context", "nope"}, env);
  CHECK(unknown.status != 0);
  CHECK_THAT(unknown.err, Contains("context \"nope\" is not in the talosconfig (it has: demo, demo-1)"));
  auto none = cosictl({"--talosconfig", d / "missing", "config", "contexts"}, env);
  CHECK(none.status != 0);
  CHECK_THAT(none.err, Contains("no talosconfig at"));
}

TEST_CASE("talosconfig files: Talos's key label is read, unknown keys are errors with a line", "[cosictl]") {
  auto ok = cosictl::parse_talosconfig(
      "context: a\ncontexts:\n  a:\n    endpoints: [1.2.3.4]\n    ca: \"\"\n    crt: \"\"\n    key: "
      "LS0tLS1CRUdJTiBFRDI1NTE5IFBSSVZBVEUgS0VZLS0tLS0KTUM0Q0FRQXdCUVlESzJWd0JDSUVJQ1lheC9ldlRmcGFaMnhhay9kSGM5Mks1aWhaQ0xuOTF2ZzFLY1V3OU1sMwotLS0tLUVORCBFRDI1NTE5IFBSSVZBVEUgS0VZLS0tLS0K\n");
  REQUIRE(ok.ok());
  auto key = pki::PrivateKey::parse(ok->contexts.at("a").key);
  REQUIRE(key.ok());
  CHECK(key->is_ed25519());
  auto bad = cosictl::parse_talosconfig("context: a\ncontexts:\n  a:\n    endpoint: [1.2.3.4]\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message() == "talosconfig line 4: contexts.a.endpoint: unknown key");
  auto not_base64 = cosictl::parse_talosconfig("contexts:\n  a:\n    ca: \"%%%\"\n");
  REQUIRE_FALSE(not_base64.ok());
  CHECK_THAT(not_base64.error().message(), Contains("contexts.a.ca: is not base64"));
  // Names and addresses are printable UTF-8 (found by the fuzzer: a NUL in a context name did
  // not survive a rewrite).
  auto control = cosictl::parse_talosconfig(std::string("contexts:\n  \"a\\0b\": {}\n"));
  REQUIRE_FALSE(control.ok());
  CHECK_THAT(control.error().message(), Contains("contexts: contains control characters"));
  auto latin1 = cosictl::parse_talosconfig("context: a\ncontexts:\n  a:\n    endpoints: [\"caf\xe9\"]\n");
  REQUIRE_FALSE(latin1.ok());
  CHECK_THAT(latin1.error().message(), Contains("talosconfig line 4: not valid YAML: not UTF-8"));
  auto unicode = cosictl::parse_talosconfig("context: \"caf\xc3\xa9\"\ncontexts:\n  \"caf\xc3\xa9\": {}\n");
  REQUIRE(unicode.ok());
  // Round trip.
  auto text = cosictl::render_talosconfig(*ok);
  auto back = cosictl::parse_talosconfig(text);
  REQUIRE(back.ok());
  CHECK(*back == *ok);
}

}  // namespace cosi::testing
