#include "api/service_operator.h"

#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/resource/typed_resource.h"
#include "runtime/state/state_ops.h"

namespace cosi::api {

using namespace cosi::resources;

namespace {

machine::ServiceInfo to_info(const std::string& id, const ServiceStatusSpec& s) {
  machine::ServiceInfo info;
  info.set_id(id);
  info.set_state(s.state());
  for (const auto& e : s.events()) {
    auto* out = info.mutable_events()->add_events();
    out->set_msg(e.msg());
    out->set_state(e.state());
    *out->mutable_ts() = e.ts();
  }
  auto* health = info.mutable_health();
  health->set_unknown(s.health_unknown());
  health->set_healthy(s.healthy());
  health->set_last_message(s.health_message());
  *health->mutable_last_change() = s.health_changed();
  return info;
}

}  // namespace

Result<std::vector<machine::ServiceInfo>> StoreServices::list() {
  auto statuses = state_.list({kRuntimeNamespace, kServiceStatusType});
  if (!statuses.ok()) return statuses.error();
  std::vector<machine::ServiceInfo> out;
  for (const auto& r : *statuses) {
    if (auto s = resource_cast<ServiceStatusSpec>(r)) out.push_back(to_info(r->metadata().id(), s->spec()));
  }
  return out;
}

Status StoreServices::ask(const std::string& id, const std::function<void(bool&, uint64_t&)>& edit) {
  if (auto status = state_.get({kRuntimeNamespace, kServiceStatusType, id}); !status.ok()) {
    if (status.error().kind() == ErrorKind::kNotFound) return Error(ErrorKind::kNotFound, "service \"" + id + "\" not defined");
    return status.error();
  }
  auto written = modify(
      state_, make_resource(Metadata(kRuntimeNamespace, kServiceRequestType, id), ServiceRequestSpec{}),
      [&](Resource& r) {
        auto& spec = typed<ServiceRequestSpec>(r);
        bool stopped = spec.stopped();
        uint64_t restarts = spec.restarts();
        edit(stopped, restarts);
        spec.set_stopped(stopped);
        spec.set_restarts(restarts);
        return Status();
      },
      {.owner = Atom(kOwner)});
  if (!written.ok()) return written.error();
  return {};
}

Status StoreServices::start(const std::string& id) {
  return ask(id, [](bool& stopped, uint64_t&) { stopped = false; });
}

Status StoreServices::stop(const std::string& id) {
  return ask(id, [](bool& stopped, uint64_t&) { stopped = true; });
}

Status StoreServices::restart(const std::string& id) {
  return ask(id, [](bool& stopped, uint64_t& restarts) {
    stopped = false;
    ++restarts;
  });
}

}  // namespace cosi::api
