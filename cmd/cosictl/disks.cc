// cosictl disks: the older verb of the seed's maintenance-mode steps, as talosctl printed it —
// DEV MODEL SERIAL TYPE UUID WWID MODALIAS NAME SIZE BUS_PATH — made from the node's Disks
// (the same resources `get disks` lists). Loop and zram devices are left out, as the old verb
// left them; TYPE is CD, NVME or SD by what the disk is, else HDD or SSD by whether it rotates;
// an empty cell is "-". With several nodes a NODE column comes first.
#include <cstdio>

#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/output.h"
#include "resources/block/block_resources.h"
#include "state.grpc.pb.h"

namespace cosi::cosictl {
namespace {

namespace pb = ::cosi::resource;
using resources::DiskSpec;

std::string cell(const std::string& s) { return s.empty() ? "-" : s; }

std::string disk_type(const std::string& id, const DiskSpec& d) {
  if (d.cdrom()) return "CD";
  if (d.transport() == "nvme" || id.find("nvme") != std::string::npos) return "NVME";
  if (d.transport() == "mmc" || id.find("mmc") != std::string::npos) return "SD";
  return d.rotational() ? "HDD" : "SSD";
}

}  // namespace

Status run_disks(const Connection& c) {
  auto stub = pb::State::NewStub(c.channel());
  const bool many = c.nodes().size() > 1;
  TabWriter table;
  std::vector<std::string> header{"DEV", "MODEL", "SERIAL", "TYPE", "UUID", "WWID", "MODALIAS", "NAME", "SIZE", "BUS_PATH"};
  if (many) header.insert(header.begin(), "NODE");
  table.row(header);
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    pb::ListRequest req;
    req.set_namespace_(std::string(resources::kRuntimeNamespace));
    req.set_type(std::string(resources::kDiskType));
    auto reader = stub->List(ctx.get(), req);
    pb::ListResponse resp;
    while (reader->Read(&resp)) {
      const std::string id = resp.resource().metadata().id();
      if (id.rfind("loop", 0) == 0 || id.rfind("zram", 0) == 0) continue;
      DiskSpec d;
      if (!d.ParseFromString(resp.resource().spec().proto_spec())) {
        ctx->TryCancel();
        (void)reader->Finish();
        return Error(ErrorKind::kInternal, node + ": disk " + id + " does not decode");
      }
      std::vector<std::string> row{d.dev_path(),  cell(d.model()),    cell(d.serial()), disk_type(id, d),
                                   cell(d.uuid()), cell(d.wwid()),    cell(d.modalias()), "-",
                                   d.pretty_size(), d.bus_path().empty() ? "-" : d.bus_path() + "/"};
      if (many) row.insert(row.begin(), node);
      table.row(row);
    }
    grpc::Status s = reader->Finish();
    if (!s.ok()) return c.error(s);
  }
  std::fputs(table.render().c_str(), stdout);
  return {};
}

}  // namespace cosi::cosictl
