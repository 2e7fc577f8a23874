#include "controllers/network/operator_config_controller.h"

#include <fnmatch.h>
#include <net/if_arp.h>

#include <optional>

#include "controllers/config/applied_config.h"
#include "resources/common/ip.h"
#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
namespace enums = ::talos::resource::definitions::enums;

namespace {

bool selects(const std::map<std::string, std::string>& selector, const LinkStatusSpec& link) {
  for (const auto& [key, want] : selector) {
    if (key == "physical") {
      const bool physical = link.type() == ARPHRD_ETHER && link.kind().empty();
      if ((want == "true") != physical) return false;
    } else if (key == "hardwareAddr" || key == "permanentAddr") {
      const std::string mac = hardware_addr_text(key == "hardwareAddr" ? link.hardware_addr() : link.permanent_addr());
      if (mac.empty() || fnmatch(want.c_str(), mac.c_str(), 0) != 0) return false;
    } else {
      return false;  // driver, busPath, pciID: not known here
    }
  }
  return true;
}

// The link an interface entry names, if this node has it.
std::optional<std::string> resolve(const config::NetworkInterface& nic, const std::vector<ResourcePtr>& links) {
  std::optional<std::pair<uint32_t, std::string>> best;
  for (const auto& r : links) {
    auto l = resource_cast<LinkStatusSpec>(r);
    if (!l) continue;
    const bool match = nic.name.empty() ? selects(nic.device_selector, l->spec())
                                        : (r->metadata().id() == nic.name || (!l->spec().alias().empty() && l->spec().alias() == nic.name));
    if (match && (!best || l->spec().index() < best->first)) best = {l->spec().index(), r->metadata().id()};
  }
  if (!best) return std::nullopt;
  return best->second;
}

}  // namespace

std::vector<Input> OperatorConfigController::inputs() const { return {applied_config_input(), {kNetworkNamespace, kLinkStatusType}}; }

std::vector<Output> OperatorConfigController::outputs() const { return {{kOperatorSpecType}}; }

ReconcileResult OperatorConfigController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || (*cfg)->type != config::MachineType::kControlPlane) return ReconcileResult::done();
  auto links = ctx.list({kNetworkNamespace, kLinkStatusType});
  if (!links.ok()) return ReconcileResult::retry(links.error());
  for (size_t i = 0; i < (*cfg)->interfaces.size(); ++i) {
    const auto& nic = (*cfg)->interfaces[i];
    if (nic.vip.empty()) continue;
    const std::string entry = "machine.network.interfaces[" + std::to_string(i) + "]";
    auto link = resolve(nic, *links);
    if (!link) {
      if (complained_.insert(entry).second) {
        ctx.log().warn("no link on this node matches the interface of a VIP; not campaigning for it",
                       {{"interface", entry}, {"vip", nic.vip}});
      }
      continue;
    }
    complained_.erase(entry);
    const auto ip = ip_bytes(nic.vip);
    if (!ip) return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, entry + ".vip.ip is not an IP address"));
    auto written = ctx.modify<OperatorSpecSpec>(Metadata(kNetworkNamespace, kOperatorSpecType, "vip/" + *link + "/" + nic.vip),
                                                [&](OperatorSpecSpec& s) {
                                                  s.Clear();
                                                  s.set_operator_(enums::OPERATOR_VIP);
                                                  s.set_link_name(*link);
                                                  s.set_require_up(true);
                                                  s.mutable_vip()->mutable_ip()->set_ip(*ip);
                                                  s.mutable_vip()->set_gratuitous_arp(true);
                                                  s.set_config_layer(enums::CONFIG_MACHINE_CONFIGURATION);
                                                });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
