#include "controllers/network/vip_operator_controller.h"

#include <set>

#include "controllers/etcd/etcd_view.h"
#include "controllers/network/addressing.h"
#include "resources/common/ip.h"
#include "resources/network/network_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;
namespace enums = ::talos::resource::definitions::enums;

namespace {

const Pointer kEtcdService{kRuntimeNamespace, kServiceType, "etcd"};
const Pointer kHostname{kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)};

bool etcd_healthy(ControllerContext& ctx) {
  auto service = ctx.get_typed<ServiceSpec>(kEtcdService);
  return service.ok() && (*service)->spec().running() && (*service)->spec().healthy();
}

google::protobuf::Timestamp timestamp(std::chrono::system_clock::time_point t) {
  google::protobuf::Timestamp out;
  if (t == std::chrono::system_clock::time_point{}) return out;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  out.set_seconds(ns / 1'000'000'000);
  out.set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
  return out;
}

}  // namespace

std::vector<Input> VIPOperatorController::inputs() const {
  auto in = etcd_view_inputs();
  in.push_back({kNetworkNamespace, kOperatorSpecType});
  in.push_back({kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)});
  in.push_back({kRuntimeNamespace, kServiceType, "etcd"});
  in.push_back({kNetworkNamespace, kAddressStatusType});  // to see an address leave the link
  return in;
}

std::vector<Output> VIPOperatorController::outputs() const {
  return {{kAddressSpecType, OutputKind::kShared}, {kVIPStatusType}};
}

ReconcileResult VIPOperatorController::reconcile(ControllerContext& ctx) {
  auto operators = ctx.list({kNetworkNamespace, kOperatorSpecType});
  if (!operators.ok()) return ReconcileResult::retry(operators.error());
  auto statuses = ctx.list({kNetworkNamespace, kAddressStatusType});
  if (!statuses.ok()) return ReconcileResult::retry(statuses.error());
  std::set<std::string> on_links;
  for (const auto& r : *statuses) on_links.insert(r->metadata().id());
  auto hostname = ctx.get_typed<HostnameStatusSpec>(kHostname);
  const auto view = read_etcd_view(ctx, options_.etcd_client_port, options_.etcd_peer_port);
  const bool can_campaign = view && etcd_healthy(ctx) && hostname.ok() && !(*hostname)->spec().hostname().empty();
  const auto now = ctx.now();

  std::unique_lock lock(mu_);
  waker_ = ctx.waker();
  std::set<std::string> configured;
  for (const auto& r : *operators) {
    auto o = resource_cast<OperatorSpecSpec>(r);
    if (!o || o->spec().operator_() != enums::OPERATOR_VIP || !o->spec().has_vip()) continue;
    const std::string& id = r->metadata().id();
    configured.insert(id);
    auto& c = campaigns_[id];
    c.link = o->spec().link_name();
    c.ip = o->spec().vip().ip().ip();
    c.announce = o->spec().vip().gratuitous_arp();
    if (!c.election && can_campaign && !stepping_down_) {
      c.election = elections_(VipElectionOptions{.key = "talos:v1:vip:election:" + ip_text(c.ip),
                                                 .candidate = (*hostname)->spec().hostname(),
                                                 .ttl = options_.lease_ttl,
                                                 .endpoint = view->self,
                                                 .tls = view->tls,
                                                 .on_change = waker_,
                                                 .log = ctx.log()});
      ctx.log().info("campaigning for a shared VIP", {{"vip", ip_text(c.ip)}, {"link", c.link}});
    }
  }

  std::optional<SteadyTime> wake_at;
  std::vector<std::unique_ptr<VipElection>> resigning;
  for (auto it = campaigns_.begin(); it != campaigns_.end();) {
    Campaign& c = it->second;
    const bool wanted = configured.contains(it->first) && !stepping_down_;
    const auto state = c.election ? c.election->state() : VipElectionState{};
    const bool hold = wanted && state.leading && now < state.valid_until;
    const int bits = c.ip.size() == 4 ? 32 : 128;
    const std::string address = address_id(c.link, c.ip, bits);
    const bool on_link = on_links.contains(address);
    if (hold) {
      auto fresh = make_resource(Metadata(kNetworkNamespace, kAddressSpecType, address), AddressSpecSpec{});
      auto written = ctx.modify(std::move(fresh), [&](Resource& r) {
        auto& s = typed<AddressSpecSpec>(r);
        s.Clear();
        s.mutable_address()->set_ip(c.ip);
        s.mutable_address()->set_prefix_length(static_cast<uint32_t>(bits));
        s.set_link_name(c.link);
        s.set_family(c.ip.size() == 4 ? enums::FAMILY_INET4 : enums::FAMILY_INET6);
        s.set_scope(enums::SCOPE_GLOBAL);
        s.set_flags(128);  // permanent, as Talos marks operator addresses (the kernel lifetime is ours)
        s.set_announce_with_arp(c.announce);
        s.set_config_layer(enums::CONFIG_OPERATOR);
        r.mutable_metadata().mutable_annotations().set(kValidUntilAnnotation, valid_until_text(state.valid_until));
        return Status();
      });
      if (!written.ok()) return ReconcileResult::retry(written.error());
      if (!wake_at || state.valid_until < *wake_at) wake_at = state.valid_until;
    }
    if (configured.contains(it->first)) {
      auto written = ctx.modify<VIPStatusSpec>(Metadata(kNetworkNamespace, kVIPStatusType, ip_text(c.ip)), [&](VIPStatusSpec& s) {
        s.Clear();
        s.mutable_ip()->set_ip(c.ip);
        s.set_link_name(c.link);
        s.set_holder(state.holder);
        s.set_held_by_this_node(hold && on_link);
        if (!state.holder.empty()) *s.mutable_since() = timestamp(state.since);
      });
      if (!written.ok()) return ReconcileResult::retry(written.error());
    }
    // Letting go: resign only once the address is off the link.
    if (!wanted && c.election && !on_link) {
      resigning.push_back(std::move(c.election));
      ++resigning_;
    }
    if (!configured.contains(it->first) && !c.election) {
      it = campaigns_.erase(it);
    } else {
      ++it;
    }
  }
  lock.unlock();

  for (auto& e : resigning) {
    if (auto s = e->resign(std::chrono::seconds(1)); !s.ok()) ctx.log().warn("resigning from a VIP election", {{"error", s.error().message()}});
  }
  if (!resigning.empty()) {
    lock.lock();
    resigning_ -= static_cast<int>(resigning.size());
    lock.unlock();
    released_cv_.notify_all();
  }
  if (wake_at) return ReconcileResult::requeue_after(*wake_at - now);
  return ReconcileResult::done();
}

void VIPOperatorController::step_down() {
  ControllerContext::Waker waker;
  {
    std::lock_guard lock(mu_);
    stepping_down_ = true;
    waker = waker_;
  }
  if (waker) waker();
}

Status VIPOperatorController::release(std::chrono::milliseconds deadline) {
  step_down();
  std::unique_lock lock(mu_);
  const auto all_resigned = [&] {
    if (resigning_ > 0) return false;
    for (const auto& [id, c] : campaigns_) {
      if (c.election) return false;
    }
    return true;
  };
  if (released_cv_.wait_for(lock, deadline, all_resigned)) return {};
  std::string left;
  for (auto& [id, c] : campaigns_) {
    if (!c.election) continue;
    left += (left.empty() ? "" : ", ") + ip_text(c.ip);
    c.election.reset();  // stops campaigning; the lease runs out
  }
  return Error(ErrorKind::kDeadlineExceeded, "the VIP " + left + " was still on its link; not resigning (it moves when the lease expires)");
}

}  // namespace cosi::controllers
