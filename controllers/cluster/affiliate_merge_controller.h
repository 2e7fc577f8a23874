// AffiliateMergeController: one cluster/Affiliates per other node, id = its node id, from what
// every registry reported in cluster-raw ("<registry>/<node id>"): addresses are the union,
// other fields from the most recently updated record. This node's own record is the local
// affiliate's (never overwritten by what a registry echoes back).
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class AffiliateMergeController final : public Controller {
 public:
  std::string name() const override { return "cluster.AffiliateMergeController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
