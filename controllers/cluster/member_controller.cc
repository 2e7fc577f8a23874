#include "controllers/cluster/member_controller.h"

#include <map>

#include "resources/cluster/cluster_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> MemberController::inputs() const {
  return {{kClusterNamespace, kAffiliateType}, {kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)}};
}

std::vector<Output> MemberController::outputs() const { return {{kMemberType}}; }

ReconcileResult MemberController::reconcile(ControllerContext& ctx) {
  auto affiliates = ctx.list({kClusterNamespace, kAffiliateType});
  if (!affiliates.ok()) return ReconcileResult::retry(affiliates.error());
  std::string self;
  if (auto identity = ctx.get_typed<IdentitySpec>({kClusterNamespace, kIdentityType, std::string(kLocalIdentityId)}); identity.ok()) {
    self = (*identity)->spec().node_id();
  }

  struct Chosen {
    std::shared_ptr<const TypedResource<AffiliateSpec>> affiliate;
    bool local = false;
  };
  std::map<std::string, Chosen> by_name;
  for (const auto& r : *affiliates) {
    auto a = resource_cast<AffiliateSpec>(r);
    if (!a) continue;
    const auto& spec = a->spec();
    const std::string name = !spec.nodename().empty() ? spec.nodename() : !spec.hostname().empty() ? spec.hostname() : spec.node_id();
    if (name.empty()) continue;
    const bool local = !self.empty() && spec.node_id() == self;
    Chosen& c = by_name[name];
    const bool better = !c.affiliate || (local && !c.local) ||
                        (!c.local && r->metadata().updated() > c.affiliate->metadata().updated());
    if (better) c = {a, local};
  }
  for (const auto& [name, c] : by_name) {
    const auto& a = c.affiliate->spec();
    auto written = ctx.modify<MemberSpec>(Metadata(kClusterNamespace, kMemberType, name), [&](MemberSpec& m) {
      m.Clear();
      m.set_node_id(a.node_id());
      *m.mutable_addresses() = a.addresses();
      m.set_hostname(a.hostname());
      m.set_machine_type(a.machine_type());
      m.set_operating_system(a.operating_system());
      if (a.has_control_plane()) *m.mutable_control_plane() = a.control_plane();
    });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
