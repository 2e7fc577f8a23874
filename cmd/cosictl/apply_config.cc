// cosictl apply-config: send a machine config to each node (machine.MachineService.
// ApplyConfiguration). With --insecure it reaches nodes in maintenance mode; --dry-run reports
// what would change and changes nothing.
#include <cstdio>

#include "cmd/common/files.h"
#include "cmd/cosictl/commands.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {

namespace {

Result<machine::ApplyConfigurationRequest::Mode> parse_mode(const std::string& mode) {
  using M = machine::ApplyConfigurationRequest;
  if (mode == "auto") return M::AUTO;
  if (mode == "no-reboot") return M::NO_REBOOT;
  if (mode == "reboot") return M::REBOOT;
  if (mode == "staged") return M::STAGED;
  if (mode == "try") return M::TRY;
  return Error(ErrorKind::kInvalidArgument, "--mode \"" + mode + "\" is not one of auto, no-reboot, reboot, staged, try");
}

}  // namespace

Status run_apply_config(const Connection& c, const ApplyOptions& o) {
  if (o.file.empty()) return Error(ErrorKind::kInvalidArgument, "apply-config: give the config with -f FILE");
  auto mode = parse_mode(o.mode);
  if (!mode.ok()) return mode.error();
  auto data = cmd::read_file(o.file);
  if (!data.ok()) return Error(ErrorKind::kInvalidArgument, "apply-config: " + data.error().message());
  auto stub = machine::MachineService::NewStub(c.channel());
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    machine::ApplyConfigurationRequest req;
    req.set_data(*data);
    req.set_mode(*mode);
    req.set_dry_run(o.dry_run);
    machine::ApplyConfigurationResponse resp;
    grpc::Status s = stub->ApplyConfiguration(ctx.get(), req, &resp);
    if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      // A refused config, in talosctl's words (the seed's "specified install disk does not exist").
      return Error(ErrorKind::kInvalidArgument, node + ": error applying new configuration: rpc error: code = InvalidArgument desc = " +
                                                    s.error_message());
    }
    if (!s.ok()) {
      Error e = c.error(s);
      return Error(e.kind(), node + ": " + e.message());
    }
    for (const auto& m : resp.messages()) {
      for (const auto& w : m.warnings()) std::fprintf(stderr, "warning: %s\n", w.c_str());
      if (!m.mode_details().empty()) std::printf("%s\n", m.mode_details().c_str());
    }
  }
  return {};
}

}  // namespace cosi::cosictl
