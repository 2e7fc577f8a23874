#include "controllers/block/disks_controller.h"

#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Output> DisksController::outputs() const { return {{kDiskType}}; }

ReconcileResult DisksController::reconcile(ControllerContext& ctx) {
  if (!subscribed_) {
    devices_.subscribe(ctx.waker());
    subscribed_ = true;
  }
  auto disks = devices_.disks();
  if (!disks.ok()) return ReconcileResult::retry(disks.error());
  for (const auto& d : *disks) {
    auto written = ctx.modify<DiskSpec>(Metadata(kRuntimeNamespace, kDiskType, d.id), [&](DiskSpec& s) { s = d.spec; });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  return ReconcileResult::done();  // disks that went are destroyed with their resource
}

}  // namespace cosi::controllers
