#include "controllers/network/address_status_controller.h"

#include <map>

#include "controllers/network/addressing.h"
#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
namespace enums = ::talos::resource::definitions::enums;

std::vector<Output> AddressStatusController::outputs() const { return {{kAddressStatusType}}; }

ReconcileResult AddressStatusController::reconcile(ControllerContext& ctx) {
  if (!subscribed_) {
    kernel_.subscribe(ctx.waker());
    subscribed_ = true;
  }
  auto links = kernel_.links();
  if (!links.ok()) return ReconcileResult::retry(links.error());
  auto addresses = kernel_.addresses();
  if (!addresses.ok()) return ReconcileResult::retry(addresses.error());
  std::map<uint32_t, std::string> names;
  for (const auto& l : *links) names[l.index] = l.name;
  for (const auto& a : *addresses) {
    const auto name = names.find(a.link_index);
    if (name == names.end()) continue;  // a link that went between the two reads
    auto written = ctx.modify<AddressStatusSpec>(
        Metadata(kNetworkNamespace, kAddressStatusType, address_id(name->second, a.address, a.prefix_length)),
        [&](AddressStatusSpec& s) {
          s.Clear();
          s.mutable_address()->set_ip(a.address);
          s.mutable_address()->set_prefix_length(static_cast<uint32_t>(a.prefix_length));
          if (!a.local.empty()) s.mutable_local()->set_ip(a.local);
          if (!a.broadcast.empty()) s.mutable_broadcast()->set_ip(a.broadcast);
          s.set_link_index(a.link_index);
          s.set_link_name(name->second);
          s.set_family(static_cast<enums::NethelpersFamily>(a.family));
          s.set_scope(static_cast<enums::NethelpersScope>(a.scope));
          s.set_flags(a.flags);
          s.set_priority(a.priority);
        });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();  // addresses that went are destroyed with their status
}

}  // namespace cosi::controllers
