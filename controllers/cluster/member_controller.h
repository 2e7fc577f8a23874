// MemberController: cluster/Members, one per node name, from the merged Affiliates (this
// node's and every peer's). When two affiliates carry the same node name — a node re-installed
// with a new identity while its old record waits out its TTL — the member is the most recently
// updated one (this node's own record always wins for its name), so it never shows twice.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class MemberController final : public Controller {
 public:
  std::string name() const override { return "cluster.MemberController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
