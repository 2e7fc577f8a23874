// gen secrets, gen config and machineconfig patch: the files a cluster starts from, made
// locally without talking to any node.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>

#include "resources/secrets/secrets_bundle.h"
#include "cmd/common/files.h"
#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/talosconfig.h"
#include "resources/config/machine_config.h"
#include "resources/config/patch.h"
#include "runtime/base/base64.h"

namespace cosi::cosictl {

namespace {

Status refuse_existing(const std::string& path, bool force) {
  std::error_code ec;
  if (!force && std::filesystem::exists(path, ec)) {
    return Error(ErrorKind::kAlreadyExists, path + " already exists; use --force to overwrite it");
  }
  return {};
}

Status write_output(const std::string& path, const std::string& content, bool force) {
  if (auto s = refuse_existing(path, force); !s.ok()) return s;
  if (auto s = cmd::write_file_atomically(path, content, 0600); !s.ok()) return s;
  std::error_code ec;
  std::printf("created %s\n", std::filesystem::absolute(path, ec).c_str());
  return {};
}

// "@file" reads the file; anything else is the patch itself.
Result<std::string> patch_text(const std::string& arg) {
  if (arg.empty() || arg[0] != '@') return arg;
  auto text = cmd::read_file(arg.substr(1));
  if (!text.ok()) return Error(ErrorKind::kInvalidArgument, "patch " + arg + ": " + text.error().message());
  return text;
}

Result<std::string> apply_patches(std::string config, const std::vector<std::string>& patches) {
  for (const auto& arg : patches) {
    auto text = patch_text(arg);
    if (!text.ok()) return text.error();
    auto next = config::apply_patch(config, *text);
    if (!next.ok()) return Error(ErrorKind::kInvalidArgument, "patch " + arg + ": " + next.error().message());
    config = std::move(*next);
  }
  return config;
}

// The machine config of one node type, with only the keys machined acts on (so applying it
// draws no warnings).
std::string machine_config(const pki::SecretsBundle& s, const GenConfigOptions& o, config::MachineType type) {
  const bool cp = type == config::MachineType::kControlPlane;
  YAML::Emitter out;
  out << YAML::Indent(4) << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << "v1alpha1";
  out << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value << std::string(config::to_string(type));
  out << YAML::Key << "token" << YAML::Value << s.trustd_token;
  out << YAML::Key << "ca" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "crt" << YAML::Value << base64_encode(s.os.crt);
  // A worker holds the OS CA certificate, never its key: it gets its certificate from trustd.
  out << YAML::Key << "key" << YAML::Value << (cp ? base64_encode(s.os.key) : std::string());
  out << YAML::EndMap;
  out << YAML::Key << "certSANs" << YAML::Value << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
  // Talos's default install disk: a node that checks it refuses the config where there is none
  // (the seed's "specified install disk does not exist"); edit it to one `cosictl disks` lists.
  out << YAML::Key << "install" << YAML::Value << YAML::BeginMap << YAML::Key << "disk" << YAML::Value << o.install_disk
      << YAML::Comment("The disk used for installations.") << YAML::EndMap;
  out << YAML::Key << "features" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "kubePrism" << YAML::Value << YAML::BeginMap << YAML::Key << "enabled" << YAML::Value << true
      << YAML::Key << "port" << YAML::Value << 7445 << YAML::EndMap;
  out << YAML::EndMap;
  out << YAML::EndMap;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "id" << YAML::Value << s.cluster_id;
  out << YAML::Key << "secret" << YAML::Value << s.cluster_secret;
  out << YAML::Key << "controlPlane" << YAML::Value << YAML::BeginMap << YAML::Key << "endpoint" << YAML::Value
      << o.endpoint << YAML::EndMap;
  out << YAML::Key << "clusterName" << YAML::Value << o.cluster_name;
  // The Kubernetes CA: its key only where the API server runs.
  out << YAML::Key << "ca" << YAML::Value << YAML::BeginMap << YAML::Key << "crt" << YAML::Value << base64_encode(s.k8s.crt)
      << YAML::Key << "key" << YAML::Value << (cp ? base64_encode(s.k8s.key) : std::string()) << YAML::EndMap;
  out << YAML::Key << "discovery" << YAML::Value << YAML::BeginMap;
  // We never dial out by default: discovery runs only against an endpoint the user names.
  out << YAML::Key << "enabled" << YAML::Value << !o.discovery_endpoint.empty();
  if (!o.discovery_endpoint.empty()) {
    out << YAML::Key << "registries" << YAML::Value << YAML::BeginMap << YAML::Key << "service" << YAML::Value
        << YAML::BeginMap << YAML::Key << "endpoint" << YAML::Value << o.discovery_endpoint << YAML::EndMap
        << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (cp) {
    out << YAML::Key << "etcd" << YAML::Value << YAML::BeginMap << YAML::Key << "ca" << YAML::Value << YAML::BeginMap
        << YAML::Key << "crt" << YAML::Value << base64_encode(s.etcd.crt) << YAML::Key << "key" << YAML::Value
        << base64_encode(s.etcd.key) << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

Result<pki::SecretsBundle> bundle_for(const GenConfigOptions& o) {
  if (o.with_secrets.empty()) {
    std::printf("generating PKI and tokens\n");
    return pki::SecretsBundle::generate();
  }
  auto text = cmd::read_file(o.with_secrets);
  if (!text.ok()) return Error(ErrorKind::kInvalidArgument, "--with-secrets: " + text.error().message());
  auto bundle = pki::SecretsBundle::parse(*text);
  if (!bundle.ok()) return Error(ErrorKind::kInvalidArgument, o.with_secrets + ": " + bundle.error().message());
  return bundle;
}

}  // namespace

Status run_gen_secrets(const std::string& output, bool force) {
  const std::string path = output.empty() ? "secrets.yaml" : output;
  return write_output(path, pki::SecretsBundle::generate().yaml(), force);
}

Status run_gen_config(const GenConfigOptions& o) {
  if (o.cluster_name.empty()) return Error(ErrorKind::kInvalidArgument, "gen config: the cluster name is empty");
  auto url = config::parse_url(o.endpoint);
  if (!url.ok() || url->scheme != "https") {
    return Error(ErrorKind::kInvalidArgument,
                 "gen config: the cluster endpoint must be an https URL such as https://127.0.5.10:6443, got \"" +
                     o.endpoint + "\"");
  }
  if (!o.discovery_endpoint.empty()) {
    if (auto d = config::parse_url(o.discovery_endpoint); !d.ok()) {
      return Error(ErrorKind::kInvalidArgument, "--discovery-endpoint: " + d.error().message());
    }
  }
  std::vector<std::string> types = o.output_types.empty()
                                       ? std::vector<std::string>{"controlplane", "worker", "talosconfig"}
                                       : o.output_types;
  for (const auto& t : types) {
    if (t != "controlplane" && t != "worker" && t != "talosconfig") {
      return Error(ErrorKind::kInvalidArgument,
                   "--output-types: \"" + t + "\" is not one of controlplane, worker, talosconfig");
    }
  }
  // One type and -o naming no directory: -o is the file (as talosctl has it). Otherwise -o is
  // the directory.
  std::error_code ec;
  const bool output_is_file = types.size() == 1 && !o.output.empty() && !std::filesystem::is_directory(o.output, ec);
  auto path_of = [&](const std::string& type) {
    const std::string name = type == "talosconfig" ? "talosconfig" : type + ".yaml";
    if (output_is_file) return o.output;
    return o.output.empty() ? name : (std::filesystem::path(o.output) / name).string();
  };
  for (const auto& t : types) {
    if (auto s = refuse_existing(path_of(t), o.force); !s.ok()) return s;
  }

  auto bundle = bundle_for(o);
  if (!bundle.ok()) return bundle.error();

  // Everything is built and checked before anything is written.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& t : types) {
    if (t == "talosconfig") {
      auto admin = bundle->issue_client({"os:admin"}, std::chrono::duration_cast<std::chrono::seconds>(pki::kYear));
      if (!admin.ok()) return admin.error();
      TalosConfig tc;
      tc.context = o.cluster_name;
      tc.contexts[o.cluster_name] = TalosContext{{url->host}, {}, bundle->os.crt, admin->crt, admin->key};
      files.emplace_back(path_of(t), render_talosconfig(tc));
      continue;
    }
    const auto type = t == "controlplane" ? config::MachineType::kControlPlane : config::MachineType::kWorker;
    std::vector<std::string> patches = o.patches;
    const auto& specific = t == "controlplane" ? o.patches_control_plane : o.patches_worker;
    patches.insert(patches.end(), specific.begin(), specific.end());
    auto text = apply_patches(machine_config(*bundle, o, type), patches);
    if (!text.ok()) return text.error();
    if (auto check = config::parse_machine_config(*text); !check.ok()) {
      return Error(ErrorKind::kInvalidArgument, t + " config after patches: " + check.error().message());
    }
    files.emplace_back(path_of(t), std::move(*text));
  }
  for (const auto& [path, content] : files) {
    if (auto s = write_output(path, content, o.force); !s.ok()) return s;
  }
  return {};
}

Status run_machineconfig_patch(const std::string& file, const std::vector<std::string>& patches, const std::string& output) {
  if (patches.empty()) return Error(ErrorKind::kInvalidArgument, "machineconfig patch: give at least one --patch");
  auto text = cmd::read_file(file);
  if (!text.ok()) return Error(ErrorKind::kInvalidArgument, "machineconfig patch: " + text.error().message());
  auto patched = apply_patches(*text, patches);
  if (!patched.ok()) return patched.error();
  if (output.empty()) {
    std::fwrite(patched->data(), 1, patched->size(), stdout);
    return {};
  }
  return cmd::write_file_atomically(output, *patched, 0600);
}

}  // namespace cosi::cosictl
