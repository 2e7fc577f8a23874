#include "controllers/services/service_status_controller.h"

#include <set>

#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {

google::protobuf::Timestamp timestamp(std::chrono::system_clock::time_point t) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  google::protobuf::Timestamp out;
  out.set_seconds(ns / 1'000'000'000);
  out.set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
  return out;
}

}  // namespace

std::vector<Input> ServiceStatusController::inputs() const {
  return {{kRuntimeNamespace, kServiceType}, {kRuntimeNamespace, kServiceRequestType}};
}

std::vector<Output> ServiceStatusController::outputs() const { return {{kServiceStatusType}}; }

void ServiceStatusController::add_event(Tracked& t, const std::string& state, const std::string& msg) {
  auto* events = t.status.mutable_events();
  if (events->size() >= kMaxEvents) events->DeleteSubrange(0, events->size() - kMaxEvents + 1);
  auto* e = events->Add();
  e->set_state(state);
  e->set_msg(msg);
  *e->mutable_ts() = timestamp(wall_());
}

ReconcileResult ServiceStatusController::reconcile(ControllerContext& ctx) {
  auto services = ctx.list({kRuntimeNamespace, kServiceType});
  if (!services.ok()) return ReconcileResult::retry(services.error());
  std::set<std::string> seen;
  for (const auto& r : *services) {
    auto service = resource_cast<ServiceSpec>(r);
    if (!service) continue;
    const std::string& id = r->metadata().id();
    seen.insert(id);
    ServiceRequestSpec request;
    if (auto req = ctx.get_typed<ServiceRequestSpec>({kRuntimeNamespace, kServiceRequestType, id}); req.ok()) request = (*req)->spec();

    auto [it, fresh] = services_.try_emplace(id);
    Tracked& t = it->second;
    if (fresh) t.restarts = request.restarts();
    if (request.restarts() != t.restarts) {
      t.restarts = request.restarts();
      add_event(t, t.status.state().empty() ? "Waiting" : t.status.state(), "Restart requested");
    }

    const bool running = service->spec().running();
    std::string state;
    std::string msg;
    if (running) {
      state = request.stopped() ? "Stopping" : "Running";
      msg = request.stopped() ? "Stop requested" : "Service started";
    } else if (request.stopped()) {
      state = "Finished";
      msg = "Service stopped";
    } else if (t.status.state() == "Running" || t.status.state() == "Failed") {
      state = "Failed";  // it exited by itself: its controller starts it again
      msg = "Service exited; restarting";
    } else if (t.status.state() == "Finished" || t.status.state() == "Stopping") {
      state = "Waiting";
      msg = "Start requested";
    } else {
      state = "Waiting";
      msg = "Waiting for the service to start";
    }
    if (state != t.status.state()) {
      t.status.set_state(state);
      add_event(t, state, msg);
    }

    const bool unknown = !running || service->spec().unknown();
    const bool healthy = running && !unknown && service->spec().healthy();
    if (fresh || unknown != t.status.health_unknown() || healthy != t.status.healthy()) {
      t.status.set_health_unknown(unknown);
      t.status.set_healthy(healthy);
      t.status.set_health_message(unknown ? "" : healthy ? "Health check successful" : "Health check failed");
      *t.status.mutable_health_changed() = timestamp(wall_());
      if (!unknown) add_event(t, state, t.status.health_message());
    }

    auto written = ctx.modify<ServiceStatusSpec>(Metadata(kRuntimeNamespace, kServiceStatusType, id),
                                                 [&](ServiceStatusSpec& s) { s = t.status; });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  std::erase_if(services_, [&](const auto& entry) { return !seen.contains(entry.first); });
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
