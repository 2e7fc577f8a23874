// cosictl get <type|alias> [id]: resolves the alias against the node's ResourceDefinitions,
// then lists, gets or watches, printing as talosctl does.
#include <algorithm>
#include <cctype>

#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/output.h"
#include "state.grpc.pb.h"

namespace cosi::cosictl {
namespace {

namespace pb = ::cosi::resource;

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Result<std::vector<ResourceDefinitionSpec>> definitions(const Connection& c, pb::State::Stub& stub,
                                                        const std::string& node) {
  auto ctx = c.context(node);
  pb::ListRequest req;
  req.set_namespace_(std::string(kMetaNamespace));
  req.set_type(std::string(kResourceDefinitionType));
  auto reader = stub.List(ctx.get(), req);
  std::vector<ResourceDefinitionSpec> out;
  pb::ListResponse resp;
  while (reader->Read(&resp)) {
    auto spec = SpecTraits<ResourceDefinitionSpec>::decode(resp.resource().spec().proto_spec());
    if (spec.ok()) out.push_back(std::move(*spec));
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return c.error(s);
  return out;
}

// Case-insensitively against the definition's id or any of its aliases.
Result<ResourceDefinitionSpec> resolve(const std::vector<ResourceDefinitionSpec>& defs, const std::string& wanted,
                                       const std::string& node) {
  const std::string w = lowercase(wanted);
  std::vector<const ResourceDefinitionSpec*> matches;
  for (const auto& d : defs) {
    bool hit = d.id() == w || std::any_of(d.all_aliases.begin(), d.all_aliases.end(),
                                          [&](const std::string& a) { return lowercase(a) == w; });
    if (hit) matches.push_back(&d);
  }
  if (matches.empty()) {
    return Error(ErrorKind::kNotFound, "resource type \"" + wanted + "\" is not known to " + node +
                                           " (cosictl get rd lists the types it serves)");
  }
  if (matches.size() > 1) {
    std::sort(matches.begin(), matches.end(), [](auto* a, auto* b) { return a->type < b->type; });
    std::string names;
    for (const auto* m : matches) names += (names.empty() ? "" : ", ") + m->type;
    return Error(ErrorKind::kInvalidArgument, "resource type \"" + wanted + "\" is ambiguous: it matches " + names);
  }
  return *matches.front();
}

Status get_once(const Connection& c, pb::State::Stub& stub, const std::string& node, const GetOptions& o,
                const ResourceDefinitionSpec& def, const std::string& ns, Printer& printer) {
  auto ctx = c.context(node);
  if (!o.id.empty()) {
    pb::GetRequest req;
    req.set_namespace_(ns);
    req.set_type(def.type);
    req.set_id(o.id);
    pb::GetResponse resp;
    grpc::Status s = stub.Get(ctx.get(), req, &resp);
    if (!s.ok()) return c.error(s);
    return printer.print(node, resp.resource(), std::nullopt);
  }
  pb::ListRequest req;
  req.set_namespace_(ns);
  req.set_type(def.type);
  auto reader = stub.List(ctx.get(), req);
  pb::ListResponse resp;
  while (reader->Read(&resp)) {
    if (auto s = printer.print(node, resp.resource(), std::nullopt); !s.ok()) {
      ctx->TryCancel();
      (void)reader->Finish();
      return s;
    }
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return c.error(s);
  return {};
}

// Until the server ends the stream or the user interrupts cosictl.
Status watch(const Connection& c, pb::State::Stub& stub, const std::string& node, const GetOptions& o,
             const ResourceDefinitionSpec& def, const std::string& ns, Printer& printer) {
  auto ctx = c.context(node, /*bounded=*/false);
  pb::WatchRequest req;
  req.set_namespace_(ns);
  req.set_type(def.type);
  req.set_api_version(1);
  if (!o.id.empty()) {
    req.set_id(o.id);
  } else {
    req.mutable_options()->set_bootstrap_contents(true);
  }
  auto reader = stub.Watch(ctx.get(), req);
  pb::WatchResponse resp;
  while (reader->Read(&resp)) {
    for (const auto& e : resp.event()) {
      auto type = static_cast<EventType>(e.event_type());
      if (type != EventType::kCreated && type != EventType::kUpdated && type != EventType::kDestroyed) continue;
      // The Destroyed that opens a watch of a missing resource is a tombstone: nothing to show.
      if (type == EventType::kDestroyed && e.resource().metadata().version() == "undefined") continue;
      if (auto s = printer.print(node, e.resource(), type); !s.ok()) return s;
    }
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return c.error(s);
  return {};
}

}  // namespace

Status run_get(const Connection& c, const GetOptions& o) {
  auto stub = pb::State::NewStub(c.channel());
  for (const auto& node : c.nodes()) {
    auto defs = definitions(c, *stub, node);
    if (!defs.ok()) return defs.error();
    auto def = resolve(*defs, o.type, node);
    if (!def.ok()) return def.error();
    const std::string ns = o.ns.empty() ? def->default_namespace : o.ns;
    auto printer = make_printer(o.output, *def, o.watch);
    if (!printer.ok()) return printer.error();
    Status s = o.watch ? watch(c, *stub, node, o, *def, ns, **printer)
                       : get_once(c, *stub, node, o, *def, ns, **printer);
    (*printer)->flush();
    if (!s.ok()) return s;
  }
  return {};
}

}  // namespace cosi::cosictl
