#include "controllers/cluster/affiliate_merge_controller.h"

#include <map>
#include <set>

#include "resources/cluster/cluster_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> AffiliateMergeController::inputs() const {
  return {{kClusterRawNamespace, kAffiliateType}, {kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)}};
}

std::vector<Output> AffiliateMergeController::outputs() const { return {{kAffiliateType, OutputKind::kShared}}; }

ReconcileResult AffiliateMergeController::reconcile(ControllerContext& ctx) {
  auto raw = ctx.list({kClusterRawNamespace, kAffiliateType});
  if (!raw.ok()) return ReconcileResult::retry(raw.error());
  std::string self;
  if (auto identity = ctx.get_typed<IdentitySpec>({kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)}); identity.ok()) {
    self = (*identity)->spec().node_id();
  }

  struct Merged {
    AffiliateSpec spec;
    Timestamp updated{};
    std::set<std::string> addresses;
  };
  std::map<std::string, Merged> merged;
  for (const auto& r : *raw) {
    auto typed = resource_cast<AffiliateSpec>(r);
    if (!typed) continue;
    const std::string& id = r->metadata().id();
    const auto slash = id.find('/');
    const std::string node_id = slash == std::string::npos ? id : id.substr(slash + 1);
    if (node_id.empty() || node_id == self) continue;
    Merged& m = merged[node_id];
    if (m.spec.node_id().empty() || r->metadata().updated() > m.updated) {
      m.spec = typed->spec();
      m.updated = r->metadata().updated();
    }
    for (const auto& a : typed->spec().addresses()) m.addresses.insert(a.ip());
  }
  for (auto& [node_id, m] : merged) {
    auto written = ctx.modify<AffiliateSpec>(Metadata(kClusterNamespace, kAffiliateType, node_id), [&](AffiliateSpec& s) {
      s = m.spec;
      s.set_node_id(node_id);
      s.clear_addresses();
      // The newest record's order first, then any other registry's.
      std::set<std::string> seen;
      for (const auto& a : m.spec.addresses()) {
        if (seen.insert(a.ip()).second) s.add_addresses()->set_ip(a.ip());
      }
      for (const auto& ip : m.addresses) {
        if (seen.insert(ip).second) s.add_addresses()->set_ip(ip);
      }
    });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
