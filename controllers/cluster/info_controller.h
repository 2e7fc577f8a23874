// InfoController: the cluster this node belongs to (cluster/Infos "current": cluster.id and
// cluster.clusterName) from the applied machine config.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class InfoController final : public Controller {
 public:
  std::string name() const override { return "cluster.InfoController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
