#include "controllers/network/node_address_controller.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> NodeAddressController::inputs() const {
  return {{kNetworkNamespace, kAddressStatusType}, {kNetworkNamespace, kOperatorSpecType}};
}

std::vector<Output> NodeAddressController::outputs() const { return {{kNodeAddressType}}; }

ReconcileResult NodeAddressController::reconcile(ControllerContext& ctx) {
  auto operators = ctx.list({kNetworkNamespace, kOperatorSpecType});
  if (!operators.ok()) return ReconcileResult::retry(operators.error());
  std::set<std::string> vips;
  for (const auto& r : *operators) {
    if (auto o = resource_cast<OperatorSpecSpec>(r); o && o->spec().has_vip()) vips.insert(o->spec().vip().ip().ip());
  }
  auto statuses = ctx.list({kNetworkNamespace, kAddressStatusType});
  if (!statuses.ok()) return ReconcileResult::retry(statuses.error());
  std::vector<const AddressStatusSpec*> mine;
  for (const auto& r : *statuses) {
    auto a = resource_cast<AddressStatusSpec>(r);
    if (!a || a->spec().scope() != ::talos::resource::definitions::enums::SCOPE_GLOBAL || vips.contains(a->spec().address().ip())) continue;
    mine.push_back(&a->spec());
  }
  // IPv4 first, then by link and address, so the first address is a stable choice.
  std::sort(mine.begin(), mine.end(), [](const AddressStatusSpec* a, const AddressStatusSpec* b) {
    return std::tuple(a->address().ip().size(), a->link_index(), a->address().ip()) <
           std::tuple(b->address().ip().size(), b->link_index(), b->address().ip());
  });
  if (mine.empty()) return ReconcileResult::done();  // none yet: no NodeAddresses, so nothing starts on none
  auto written = ctx.modify<NodeAddressSpec>(Metadata(kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)),
                                             [&](NodeAddressSpec& s) {
                                               s.Clear();
                                               for (const auto* a : mine) *s.add_addresses() = a->address();
                                             });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
