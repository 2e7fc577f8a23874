#include "controllers/etcd/etcd_config_controller.h"

#include "controllers/config/applied_config.h"
#include "resources/etcd/etcd_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;

std::vector<Input> EtcdConfigController::inputs() const { return {applied_config_input()}; }

std::vector<Output> EtcdConfigController::outputs() const { return {{kEtcdConfigType}}; }

ReconcileResult EtcdConfigController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  if (!*cfg || (*cfg)->type != config::MachineType::kControlPlane) return ReconcileResult::done();
  const auto& etcd = (*cfg)->etcd;
  std::vector<std::string> vips;
  for (const auto& nic : (*cfg)->interfaces) {
    if (!nic.vip.empty()) vips.push_back(nic.vip + (nic.vip.find(':') == std::string::npos ? "/32" : "/128"));
  }
  auto split = [&](const std::vector<std::string>& subnets, auto* valid, auto* excluded) {
    for (const auto& s : subnets) {
      if (!s.empty() && s[0] == '!') {
        excluded->Add(s.substr(1));
      } else {
        valid->Add(std::string(s));
      }
    }
    for (const auto& vip : vips) excluded->Add(std::string(vip));
  };
  auto written = ctx.modify<EtcdConfigSpec>(Metadata(kEtcdNamespace, kEtcdConfigType, std::string(kEtcdConfigId)), [&](EtcdConfigSpec& s) {
    s.Clear();
    split(etcd.advertised_subnets, s.mutable_advertise_valid_subnets(), s.mutable_advertise_exclude_subnets());
    split(etcd.listen_subnets, s.mutable_listen_valid_subnets(), s.mutable_listen_exclude_subnets());
    for (const auto& [k, v] : etcd.extra_args) (*s.mutable_extra_args())[k].add_values(v);
  });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
