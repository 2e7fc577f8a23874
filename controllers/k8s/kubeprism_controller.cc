#include "controllers/k8s/kubeprism_controller.h"

#include <cstdio>

#include "controllers/common/service_request.h"
#include "resources/k8s/k8s_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;

namespace {

const Pointer kConfig{kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)};
constexpr std::string_view kService = "kubeprism";

std::string host_port(const std::string& host, uint32_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string milliseconds(std::chrono::microseconds us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fms", static_cast<double>(us.count()) / 1000.0);
  return buf;
}

}  // namespace

std::vector<Input> KubePrismController::inputs() const {
  return {{kK8sNamespace, kKubePrismConfigType, std::string(kKubePrismConfigId)}, service_request_input(kService)};
}

std::vector<Output> KubePrismController::outputs() const {
  return {{kKubePrismStatusType}, {kKubePrismUpstreamType}, {kServiceType, OutputKind::kShared}};
}

Status KubePrismController::publish_service(ControllerContext& ctx, bool running, bool healthy) {
  auto written = ctx.modify<ServiceSpec>(Metadata(kRuntimeNamespace, kServiceType, std::string(kService)), [&](ServiceSpec& s) {
    s.set_running(running);
    s.set_healthy(healthy);
    s.set_unknown(false);
  });
  return written.ok() ? Status() : Status(written.error());
}

ReconcileResult KubePrismController::reconcile(ControllerContext& ctx) {
  auto cfg = ctx.get_typed<KubePrismConfigSpec>(kConfig);
  if (!cfg.ok()) {
    if (lb_) ctx.log().info("KubePrism stopped", {{"listen", listening_}});
    lb_.reset();
    listening_.clear();
    upstreams_.clear();
    return ReconcileResult::done();  // its statuses go with it
  }
  // ServiceStop / ServiceStart / ServiceRestart, through the API.
  const auto request = read_service_request(ctx, kService);
  const bool restart = restarts_.due(request);
  if (request.stopped || (restart && lb_)) {
    if (lb_) ctx.log().info(request.stopped ? "KubePrism stopped on request" : "KubePrism restarting on request", {{"listen", listening_}});
    lb_.reset();
    listening_.clear();
    upstreams_.clear();
  }
  if (request.stopped) {
    if (auto s = publish_service(ctx, false, false); !s.ok()) return ReconcileResult::retry(s.error());
    return ReconcileResult::done();
  }
  const auto& c = (*cfg)->spec();
  const std::string listen = host_port(c.host(), static_cast<uint32_t>(c.port()));
  if (!lb_ || listen != listening_) {
    lb_.reset();
    upstreams_.clear();
    auto started = factory_(LoadBalancerOptions{.host = c.host(), .port = static_cast<int>(c.port()), .health_check = check_, .on_change = ctx.waker(), .log = ctx.log()});
    if (!started.ok()) return ReconcileResult::retry(started.error());
    lb_ = std::move(*started);
    listening_ = listen;
    ctx.log().info("KubePrism listening", {{"listen", lb_->address()}, {"upstreams", std::to_string(c.endpoints_size())}});
  }
  std::vector<std::string> upstreams;
  for (const auto& e : c.endpoints()) upstreams.push_back(host_port(e.host(), e.port()));
  if (upstreams != upstreams_) {
    lb_->set_upstreams(upstreams);
    upstreams_ = upstreams;
  }

  const auto states = lb_->upstreams();
  bool healthy = false;
  for (const auto& u : states) {
    healthy = healthy || u.healthy;
    const auto colon = u.address.rfind(':');
    auto written = ctx.modify<KubePrismUpstreamSpec>(Metadata(kK8sNamespace, kKubePrismUpstreamType, u.address), [&](KubePrismUpstreamSpec& s) {
      s.Clear();
      std::string host = u.address.substr(0, colon);
      if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
      s.set_host(host);
      s.set_port(static_cast<uint32_t>(std::stoul(u.address.substr(colon + 1))));
      s.set_healthy(u.healthy);
      s.set_latency(milliseconds(u.latency));
      s.set_score(u.score);
      s.set_active_connections(static_cast<uint32_t>(u.active));
    });
    if (!written.ok()) return ReconcileResult::retry(written.error());
  }
  auto written = ctx.modify<KubePrismStatusesSpec>(Metadata(kK8sNamespace, kKubePrismStatusType, std::string(kKubePrismStatusId)),
                                                   [&](KubePrismStatusesSpec& s) {
                                                     s.set_host(lb_->address());
                                                     s.set_healthy(healthy);
                                                   });
  if (!written.ok()) return ReconcileResult::retry(written.error());
  if (auto s = publish_service(ctx, true, healthy); !s.ok()) return ReconcileResult::retry(s.error());
  return ReconcileResult::requeue_after(std::chrono::seconds(1));
}

}  // namespace cosi::controllers
