#include "controllers/network/link_status_controller.h"

#include <linux/if.h>

#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
namespace enums = ::talos::resource::definitions::enums;

std::vector<Output> LinkStatusController::outputs() const { return {{kLinkStatusType}}; }

ReconcileResult LinkStatusController::reconcile(ControllerContext& ctx) {
  if (!subscribed_) {
    kernel_.subscribe(ctx.waker());
    subscribed_ = true;
  }
  auto links = kernel_.links();
  if (!links.ok()) return ReconcileResult::retry(links.error());
  for (const auto& l : *links) {
    auto written = ctx.modify<LinkStatusSpec>(Metadata(kNetworkNamespace, kLinkStatusType, l.name), [&](LinkStatusSpec& s) {
      s.Clear();
      s.set_index(l.index);
      s.set_type(static_cast<enums::NethelpersLinkType>(l.type));
      s.set_link_index(l.link_index);
      s.set_flags(l.flags);
      s.set_hardware_addr(l.hardware_addr);
      s.set_broadcast_addr(l.broadcast_addr);
      s.set_permanent_addr(l.permanent_addr);
      s.set_mtu(l.mtu);
      s.set_queue_disc(l.queue_disc);
      s.set_master_index(l.master_index);
      s.set_operational_state(static_cast<enums::NethelpersOperationalState>(l.operational_state));
      s.set_kind(l.kind);
      s.set_slave_kind(l.slave_kind);
      s.set_alias(l.alias);
      // Without ethtool: the carrier is what IFF_LOWER_UP says.
      s.set_link_state((l.flags & IFF_LOWER_UP) != 0);
    });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();  // links that went are destroyed with their status
}

}  // namespace cosi::controllers
