// The seed's bring-up with real processes on 127.22.0.x: gen config, machined in maintenance
// mode, apply-config --insecure (fingerprint pinned), then mutual TLS only; bad configs and
// bad callers change nothing; config and identity survive a restart; a worker gets its
// certificate from the control plane's trustd.
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/base/base64.h"
#include "test/support/process.h"

namespace cosi::testing {
namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::string binary(const char* env) {
  const char* path = std::getenv(env);
  REQUIRE(path != nullptr);
  return path;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory for one test: configs, talosconfig and the nodes' state.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("cosi-security-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

RunResult cosictl(std::vector<std::string> args) {
  args.insert(args.begin(), binary("COSI_COSICTL"));
  return run(args, in_seconds(30));
}

// machined without --insecure-dev: maintenance mode until it has a config.
class Machined {
 public:
  Machined(std::string ip, std::string state_dir, std::string hostname)
      : ip_(std::move(ip)), state_dir_(std::move(state_dir)), hostname_(std::move(hostname)) {
    start();
  }
  ~Machined() {
    if (process_) CHECK(process_->stop() == 0);
  }

  void start() {
    process_ = std::make_unique<Process>(std::vector<std::string>{
        binary("COSI_MACHINED"), "--listen", ip_ + ":50000", "--state-dir", state_dir_, "--hostname", hostname_,
        "--metrics-listen", ip_ + ":9100", "--no-install"});
  }
  void restart() {
    CHECK(process_->stop() == 0);
    start();
  }
  std::optional<std::string> wait_for(const std::string& text, int seconds = 20) {
    return process_->wait_for_line(text, in_seconds(seconds));
  }
  // The maintenance certificate's fingerprint, from the log.
  std::string fingerprint() {
    auto line = wait_for("maintenance mode");
    REQUIRE(line.has_value());
    std::smatch m;
    REQUIRE(std::regex_search(*line, m, std::regex(R"(fingerprint="([^"]+)\")")));
    return m[1];
  }

  const std::string& ip() const { return ip_; }

 private:
  std::string ip_;
  std::string state_dir_;
  std::string hostname_;
  std::unique_ptr<Process> process_;
};

}  // namespace

TEST_CASE("maintenance mode, apply-config --insecure, then mutual TLS only", "[security]") {
  Scratch s("seed");
  const std::string ip = "127.22.0.10";
  auto gen = cosictl({"gen", "config", "demo", "https://" + ip + ":6443", "-o", s.dir.string()});
  REQUIRE(gen.status == 0);
  CHECK_THAT(gen.out, Contains("created " + s.path("controlplane.yaml")));
  const std::string talosconfig = s.path("talosconfig");
  Machined cp(ip, s.path("cp"), "cp-1");
  const std::string fingerprint = cp.fingerprint();

  // Maintenance: readable without credentials; the fingerprint pins the node.
  auto rd = cosictl({"--insecure", "-n", ip, "get", "rd"});
  CHECK(rd.status == 0);
  CHECK_THAT(rd.out, Contains("ResourceDefinition"));
  auto wrong = cosictl({"apply-config", "--insecure", "-n", ip, "--cert-fingerprint", "AAAA" + fingerprint.substr(4), "-f",
                        s.path("controlplane.yaml")});
  CHECK(wrong.status != 0);
  auto dry = cosictl({"apply-config", "--insecure", "-n", ip, "--dry-run", "-f", s.path("controlplane.yaml")});
  CHECK(dry.status == 0);
  CHECK_THAT(dry.out, Contains("Dry run summary"));
  CHECK_THAT(dry.out, Contains("+ machine.type: \"controlplane\""));
  CHECK_FALSE(fs::exists(s.path("cp/config.yaml")));

  auto applied = cosictl({"apply-config", "--insecure", "-n", ip, "--cert-fingerprint", fingerprint, "-f", s.path("controlplane.yaml")});
  REQUIRE(applied.status == 0);
  CHECK_THAT(applied.out, Contains("Applied configuration"));
  REQUIRE(cp.wait_for("mode=secure").has_value());
  CHECK(slurp(s.path("cp/config.yaml")) == slurp(s.path("controlplane.yaml")));

  // Authenticated calls work; the same call without credentials does not.
  auto secure = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "rd"});
  CHECK(secure.status == 0);
  CHECK_THAT(secure.out, Contains("ResourceDefinition"));
  auto insecure = cosictl({"--insecure", "-e", ip, "-n", ip, "get", "rd"});
  CHECK(insecure.status != 0);
  CHECK_THAT(insecure.err, Contains("no client certificate"));
  auto reapply = cosictl({"apply-config", "--insecure", "-n", ip, "-f", s.path("worker.yaml")});
  CHECK(reapply.status != 0);
  CHECK_THAT(reapply.err, Contains("no client certificate"));
  CHECK(slurp(s.path("cp/config.yaml")) == slurp(s.path("controlplane.yaml")));
  auto identity = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "identities", "-o", "yaml"});
  REQUIRE(identity.status == 0);
  CHECK_THAT(identity.out, Contains("nodeId: "));
}

TEST_CASE("Talos's own files work: a talosctl-made config, a talosconfig with Talos's key label", "[security]") {
  Scratch s("talos");
  const std::string ip = "127.22.0.13";
  Machined cp(ip, s.path("cp"), "cp-1");
  cp.fingerprint();
  const char* fixture = std::getenv("COSI_TALOSCTL_CONFIG");
  REQUIRE(fixture != nullptr);
  auto applied = cosictl({"apply-config", "--insecure", "-n", ip, "-f", fixture});
  REQUIRE(applied.status == 0);
  CHECK_THAT(applied.err, Contains("warning: line "));
  CHECK_THAT(applied.err, Contains("machine.kubelet: a Talos key machined does not act on"));
  REQUIRE(cp.wait_for("mode=secure").has_value());

  // The talosconfig key as talosctl labels it.
  Scratch other("talos-label");
  const std::string ip2 = "127.22.0.14";
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + ip2 + ":6443", "-o", other.dir.string()}).status == 0);
  Machined node(ip2, other.path("cp"), "cp-2");
  node.fingerprint();
  REQUIRE(cosictl({"apply-config", "--insecure", "-n", ip2, "-f", other.path("controlplane.yaml")}).status == 0);
  REQUIRE(node.wait_for("mode=secure").has_value());
  YAML::Node tc = YAML::LoadFile(other.path("talosconfig"));
  std::string key = *base64_decode(tc["contexts"]["demo"]["key"].as<std::string>());
  key.replace(key.find("BEGIN PRIVATE KEY"), 17, "BEGIN ED25519 PRIVATE KEY");
  key.replace(key.find("END PRIVATE KEY"), 15, "END ED25519 PRIVATE KEY");
  tc["contexts"]["demo"]["key"] = base64_encode(key);
  std::ofstream(other.path("talosconfig-talos")) << YAML::Dump(tc) << "\n";
  auto r = cosictl({"--talosconfig", other.path("talosconfig-talos"), "-n", ip2, "get", "rd"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Contains("ResourceDefinition"));
}

TEST_CASE("a config that does not validate is INVALID_ARGUMENT naming its path and changes nothing", "[security]") {
  Scratch s("invalid");
  const std::string ip = "127.22.0.11";
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + ip + ":6443", "-o", s.dir.string()}).status == 0);
  Machined cp(ip, s.path("cp"), "cp-1");
  cp.fingerprint();
  REQUIRE(cosictl({"apply-config", "--insecure", "-n", ip, "-f", s.path("controlplane.yaml")}).status == 0);
  REQUIRE(cp.wait_for("mode=secure").has_value());
  const std::string talosconfig = s.path("talosconfig");
  auto before = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "machineconfig", "-o", "yaml"});
  REQUIRE(before.status == 0);
  const std::string good = slurp(s.path("controlplane.yaml"));

  struct Case {
    std::string name, text, expected;
  };
  std::string undefined = good;
  undefined.replace(undefined.find("machine:\n"), 9, "machine:\n    kubelett: {}\n");
  std::string wrong_type = good;
  wrong_type.replace(wrong_type.find("enabled: true"), 13, "enabled: maybe");
  std::string bad_url = good;
  bad_url.replace(bad_url.find("https://" + ip + ":6443"), ("https://" + ip + ":6443").size(), "https://" + ip + ":99999");
  for (const auto& c : std::vector<Case>{
           {"bad YAML", "version: v1alpha1\nmachine: [\n", "not valid YAML"},
           {"undefined key", undefined, "machine.kubelett: unknown key"},
           {"wrong type", wrong_type, "machine.features.kubePrism.enabled: expected true or false"},
           {"bad endpoint URL", bad_url, "cluster.controlPlane.endpoint"},
       }) {
    INFO(c.name);
    std::ofstream(s.path("bad.yaml")) << c.text;
    auto r = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "apply-config", "-f", s.path("bad.yaml")});
    CHECK(r.status != 0);
    CHECK_THAT(r.err, Contains("the config is not valid"));
    CHECK_THAT(r.err, Contains(c.expected));
    CHECK_THAT(r.err, Contains("line "));
    CHECK(slurp(s.path("cp/config.yaml")) == good);
    auto after = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "machineconfig", "-o", "yaml"});
    CHECK(after.out == before.out);
  }
}

TEST_CASE("config and identity survive a restart; staged configs apply at the next start", "[security]") {
  Scratch s("restart");
  const std::string ip = "127.22.0.12";
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + ip + ":6443", "-o", s.dir.string()}).status == 0);
  const std::string talosconfig = s.path("talosconfig");
  Machined cp(ip, s.path("cp"), "cp-1");
  cp.fingerprint();
  REQUIRE(cosictl({"apply-config", "--insecure", "-n", ip, "-f", s.path("controlplane.yaml")}).status == 0);
  REQUIRE(cp.wait_for("mode=secure").has_value());
  auto id = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "identities", "-o", "yaml"});
  REQUIRE(id.status == 0);

  REQUIRE(cosictl({"machineconfig", "patch", s.path("controlplane.yaml"), "--patch", "machine:\n  certSANs: [cp.example.org]\n",
                   "-o", s.path("patched.yaml")})
              .status == 0);
  auto staged = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "apply-config", "--mode", "staged", "-f", s.path("patched.yaml")});
  REQUIRE(staged.status == 0);
  CHECK_THAT(staged.out, Contains("Staged configuration"));
  CHECK(slurp(s.path("cp/config.yaml")) == slurp(s.path("controlplane.yaml")));

  cp.restart();
  REQUIRE(cp.wait_for("mode=secure").has_value());  // no maintenance mode: the config was kept
  auto again = cosictl({"--talosconfig", talosconfig, "-e", ip, "-n", ip, "get", "identities", "-o", "yaml"});
  REQUIRE(again.status == 0);
  auto node_id = [](const std::string& yaml) {
    std::smatch m;
    return std::regex_search(yaml, m, std::regex("nodeId: (\\S+)")) ? m[1].str() : std::string("none");
  };
  CHECK(node_id(again.out) == node_id(id.out));
  CHECK(node_id(id.out) != "none");
  CHECK(slurp(s.path("cp/config.yaml")) == slurp(s.path("patched.yaml")));
  CHECK_FALSE(fs::exists(s.path("cp/config.staged.yaml")));
}

TEST_CASE("a worker gets its certificate from the control plane's trustd, retrying until it answers", "[security]") {
  Scratch s("worker");
  const std::string cp_ip = "127.22.0.20", worker_ip = "127.22.0.21";
  REQUIRE(cosictl({"gen", "config", "demo", "https://" + cp_ip + ":6443", "-o", s.dir.string()}).status == 0);
  const std::string talosconfig = s.path("talosconfig");
  CHECK_THAT(slurp(s.path("worker.yaml")), Contains("key: \"\""));  // the OS CA key stays on control planes

  // The worker first, while no control plane answers.
  Machined worker(worker_ip, s.path("worker"), "worker-1");
  worker.fingerprint();
  REQUIRE(cosictl({"apply-config", "--insecure", "-n", worker_ip, "-f", s.path("worker.yaml")}).status == 0);
  REQUIRE(worker.wait_for("waiting for API certificates").has_value());
  REQUIRE(worker.wait_for("trustd at " + cp_ip).has_value());  // a failed attempt, logged and retried

  Machined cp(cp_ip, s.path("cp"), "cp-1");
  cp.fingerprint();
  REQUIRE(cosictl({"apply-config", "--insecure", "-n", cp_ip, "-f", s.path("controlplane.yaml")}).status == 0);
  REQUIRE(cp.wait_for("mode=secure").has_value());
  REQUIRE(worker.wait_for("mode=secure", 60).has_value());

  auto direct = cosictl({"--talosconfig", talosconfig, "-e", worker_ip, "-n", worker_ip, "get", "hostnamestatus"});
  CHECK(direct.status == 0);
  CHECK_THAT(direct.out, Contains("worker-1"));
  auto forwarded = cosictl({"--talosconfig", talosconfig, "-e", cp_ip, "-n", worker_ip, "get", "hostnamestatus"});
  CHECK(forwarded.status == 0);
  CHECK_THAT(forwarded.out, Contains("worker-1"));
  auto both = cosictl({"--talosconfig", talosconfig, "-e", cp_ip, "-n", cp_ip + "," + worker_ip, "version"});
  CHECK(both.status == 0);
  CHECK_THAT(both.out, Contains("NODE:        " + cp_ip));
  CHECK_THAT(both.out, Contains("NODE:        " + worker_ip));
  auto down = cosictl({"--talosconfig", talosconfig, "-e", cp_ip, "-n", "127.22.0.29", "--timeout", "5", "get", "hostnamestatus"});
  CHECK(down.status != 0);
  CHECK_THAT(down.err, Contains("node 127.22.0.29 is unreachable"));
}

}  // namespace cosi::testing
