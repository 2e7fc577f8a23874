// config merge|endpoint|node|context|contexts|info: edits of the talosconfig file, as
// talosctl makes them.
#include <cstdio>

#include "resources/secrets/certs.h"
#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/output.h"
#include "cmd/cosictl/talosconfig.h"

namespace cosi::cosictl {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

Result<TalosConfig> load_existing(const std::string& path) {
  auto config = load_talosconfig(path);
  if (!config.ok() && config.error().kind() == ErrorKind::kNotFound) {
    return Error(ErrorKind::kNotFound, "no talosconfig at " + path + " (make one with cosictl gen config, or name one with --talosconfig)");
  }
  return config;
}

// The context a command edits: --context, else the current one.
Result<TalosContext*> editable(TalosConfig& config, const std::string& context) {
  auto found = config.find(context);
  if (!found.ok()) return found.error();
  return &config.contexts[context.empty() ? config.context : context];
}

}  // namespace

Status run_config(const ConfigOptions& o, const std::vector<std::string>& args) {
  if (args.empty()) return Error(ErrorKind::kInvalidArgument, "config: say what: merge, endpoint, node, context, contexts or info");
  const std::string& what = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const std::string path = talosconfig_path(o.talosconfig);

  if (what == "merge") {
    if (rest.size() != 1) return Error(ErrorKind::kInvalidArgument, "config merge: give one talosconfig file to merge");
    auto other = load_talosconfig(rest[0]);
    if (!other.ok()) return other.error();
    auto into = load_talosconfig(path);
    if (!into.ok() && into.error().kind() != ErrorKind::kNotFound) return into.error();
    TalosConfig merged = into.ok() ? std::move(*into) : TalosConfig{};
    for (const auto& line : merge_talosconfig(merged, *other)) std::printf("%s\n", line.c_str());
    return save_talosconfig(path, merged);
  }
  if (what == "endpoint" || what == "endpoints" || what == "node" || what == "nodes") {
    auto config = load_existing(path);
    if (!config.ok()) return config.error();
    auto ctx = editable(*config, o.context);
    if (!ctx.ok()) return ctx.error();
    (what.starts_with("endpoint") ? (*ctx)->endpoints : (*ctx)->nodes) = rest;
    return save_talosconfig(path, *config);
  }
  if (what == "context") {
    if (rest.size() != 1) return Error(ErrorKind::kInvalidArgument, "config context: give the context's name");
    auto config = load_existing(path);
    if (!config.ok()) return config.error();
    if (auto found = config->find(rest[0]); !found.ok()) return found.error();
    config->context = rest[0];
    return save_talosconfig(path, *config);
  }
  if (what == "contexts" && rest.empty()) {
    auto config = load_existing(path);
    if (!config.ok()) return config.error();
    TabWriter table;
    table.row({"CURRENT", "NAME", "ENDPOINTS", "NODES"});
    for (const auto& [name, c] : config->contexts) {
      table.row({name == config->context ? "*" : "", name, joined(c.endpoints), joined(c.nodes)});
    }
    std::fputs(table.render().c_str(), stdout);
    return {};
  }
  if (what == "info" && rest.empty()) {
    auto config = load_existing(path);
    if (!config.ok()) return config.error();
    auto ctx = config->find(o.context);
    if (!ctx.ok()) return ctx.error();
    std::string roles = "not present", expires = "not present";
    if (auto cert = pki::Certificate::parse((*ctx)->crt); cert.ok()) {
      roles = joined(cert->organizations());
      auto t = std::chrono::system_clock::to_time_t(cert->not_after());
      char buf[64];
      std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
      expires = buf;
    }
    std::printf("Current context:     %s\nNodes:               %s\nEndpoints:           %s\nRoles:               %s\nCertificate expires: %s\n",
                o.context.empty() ? config->context.c_str() : o.context.c_str(), joined((*ctx)->nodes).c_str(),
                joined((*ctx)->endpoints).c_str(), roles.c_str(), expires.c_str());
    return {};
  }
  return Error(ErrorKind::kInvalidArgument, "config " + what + ": unknown subcommand or wrong arguments");
}

}  // namespace cosi::cosictl
