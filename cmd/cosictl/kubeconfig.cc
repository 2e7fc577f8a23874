// cosictl kubeconfig [PATH] [--merge=true|false] [--force]: talosctl's verb. Asks the node
// (MachineService.Kubeconfig: a gzipped tar holding "kubeconfig") for an admin kubeconfig and
// merges it into PATH (default ~/.kube/config): its cluster, user and context replace those of
// the same names, and its context becomes the current one. --merge=false writes the file as it
// came, and refuses to overwrite one that exists unless --force.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>

#include "api/tar_gz.h"
#include "cmd/common/files.h"
#include "cmd/cosictl/commands.h"
#include "machine.grpc.pb.h"
#include "resources/config/yaml_reader.h"

namespace cosi::cosictl {

namespace {

std::string default_path() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home != '\0' ? home : "/root") + "/.kube/config";
}

// Replaces the entry of `list` (clusters, users, contexts) named like `entry`, or appends it.
void put_named(YAML::Node into, const char* list, const YAML::Node& entry) {
  YAML::Node items = into[list];
  if (!items || !items.IsSequence()) items = YAML::Node(YAML::NodeType::Sequence);
  YAML::Node merged(YAML::NodeType::Sequence);
  bool replaced = false;
  for (const auto& item : items) {
    if (item["name"] && item["name"].as<std::string>() == entry["name"].as<std::string>()) {
      merged.push_back(entry);
      replaced = true;
    } else {
      merged.push_back(item);
    }
  }
  if (!replaced) merged.push_back(entry);
  into[list] = merged;
}

Result<std::string> merge(const std::string& existing, const std::string& ours) {
  try {
    YAML::Node into = existing.empty() ? YAML::Node(YAML::NodeType::Map) : config::load_yaml_document(existing);
    if (!into.IsMap()) return Error(ErrorKind::kInvalidArgument, "is not a kubeconfig (not a YAML mapping)");
    YAML::Node add = config::load_yaml_document(ours);
    if (!into["apiVersion"]) into["apiVersion"] = "v1";
    if (!into["kind"]) into["kind"] = "Config";
    for (const char* list : {"clusters", "users", "contexts"}) {
      for (const auto& entry : add[list]) put_named(into, list, entry);
    }
    into["current-context"] = add["current-context"];
    YAML::Emitter out;
    out << into;
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return Error(ErrorKind::kInvalidArgument, std::string("is not a kubeconfig: ") + e.what());
  }
}

}  // namespace

Status run_kubeconfig(const Connection& c, const KubeconfigOptions& o) {
  const std::string node = c.nodes().front();
  auto stub = machine::MachineService::NewStub(c.channel());
  auto ctx = c.context(node, false);
  auto reader = stub->Kubeconfig(ctx.get(), google::protobuf::Empty());
  std::string archive;
  common::Data chunk;
  while (reader->Read(&chunk)) archive += chunk.bytes();
  if (auto s = reader->Finish(); !s.ok()) return Error(c.error(s).kind(), node + ": " + c.error(s).message());
  auto files = api::untar_gz(archive);
  if (!files.ok()) return Error(files.error().kind(), node + " sent no kubeconfig: " + files.error().message());
  auto found = files->find("kubeconfig");
  if (found == files->end()) return Error(ErrorKind::kInternal, node + " sent an archive without a kubeconfig");

  const std::string path = o.path.empty() ? default_path() : o.path;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  std::string content = found->second;
  if (o.merge && exists && !o.force) {
    auto existing = cmd::read_file(path);
    if (!existing.ok()) return existing.error();
    auto merged = merge(*existing, found->second);
    if (!merged.ok()) return Error(merged.error().kind(), path + " " + merged.error().message() + " (--force replaces it)");
    content = std::move(*merged);
  } else if (exists && !o.force) {
    return Error(ErrorKind::kAlreadyExists, path + " exists: --merge to merge into it, --force to replace it");
  }
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (auto s = cmd::write_file_atomically(path, content, 0600); !s.ok()) return s;
  std::printf("%s kubeconfig into %s\n", o.merge && exists && !o.force ? "merged" : "wrote", path.c_str());
  return {};
}

}  // namespace cosi::cosictl
