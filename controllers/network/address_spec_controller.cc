#include "controllers/network/address_spec_controller.h"

#include <algorithm>
#include <set>

#include "controllers/network/addressing.h"
#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {

using namespace cosi::resources;
using namespace std::chrono_literals;

namespace {
constexpr std::chrono::milliseconds kAnnouncements[] = {0ms, 250ms, 500ms, 1000ms};
}  // namespace

std::vector<Input> AddressSpecController::inputs() const {
  // Address statuses only wake it: the kernel is read itself, as the truth.
  return {{kNetworkNamespace, kAddressSpecType}, {kNetworkNamespace, kLinkStatusType}, {kNetworkNamespace, kAddressStatusType}};
}

ReconcileResult AddressSpecController::reconcile(ControllerContext& ctx) {
  auto specs = ctx.list({kNetworkNamespace, kAddressSpecType});
  if (!specs.ok()) return ReconcileResult::retry(specs.error());
  auto link_list = ctx.list({kNetworkNamespace, kLinkStatusType});
  if (!link_list.ok()) return ReconcileResult::retry(link_list.error());
  std::map<std::string, KernelLink> links;
  for (const auto& r : *link_list) {
    if (auto l = resource_cast<LinkStatusSpec>(r)) {
      links[r->metadata().id()] = KernelLink{.index = l->spec().index(), .name = r->metadata().id(), .hardware_addr = l->spec().hardware_addr()};
    }
  }
  auto present = kernel_.addresses();
  if (!present.ok()) return ReconcileResult::retry(present.error());
  const auto now = ctx.now();

  std::set<std::string> wanted;
  for (const auto& r : *specs) {
    auto typed = resource_cast<AddressSpecSpec>(r);
    if (!typed || r->metadata().phase() != Phase::kRunning) continue;
    const auto& s = typed->spec();
    const std::string& id = r->metadata().id();
    auto link = links.find(s.link_name());
    if (link == links.end()) continue;  // not (yet) on this node
    const KernelAddress address{.link_index = link->second.index,
                                .family = s.family(),
                                .address = s.address().ip(),
                                .prefix_length = static_cast<int>(s.address().prefix_length()),
                                .scope = s.scope()};
    const bool there = std::any_of(present->begin(), present->end(), [&](const KernelAddress& k) { return k.same(address); });
    auto ours = added_.find(id);
    if (there && ours == added_.end()) continue;  // someone else's address: not ours to touch

    const auto annotation = r->metadata().annotations().get(kValidUntilAnnotation);
    std::optional<std::chrono::seconds> lifetime;
    if (annotation) {
      auto until = parse_valid_until(*annotation);
      if (!until) {
        ctx.log().warn("address spec with an unreadable valid-until annotation; ignored", {{"id", id}, {"value", std::string(*annotation)}});
        continue;
      }
      if (*until - now < 1s) {
        // Too little time left to add it; one already there keeps the (shorter) lifetime it has.
        if (there) wanted.insert(id);
        continue;
      }
      lifetime = std::chrono::floor<std::chrono::seconds>(*until - now);
    }
    wanted.insert(id);
    const std::string applied = annotation ? std::string(*annotation) : std::string();
    if (there && ours->second.valid_until == applied) continue;
    if (auto st = kernel_.add_address(address, lifetime); !st.ok()) return ReconcileResult::retry(st.error());
    Added& a = added_[id];
    a.address = address;
    a.valid_until = applied;
    a.ip = s.address().ip();
    if (!there) {
      ctx.log().info("address added", {{"id", id}, {"lifetime", lifetime ? std::to_string(lifetime->count()) + "s" : "permanent"}});
      if (s.announce_with_arp()) {
        a.announce_at.clear();
        for (auto d : kAnnouncements) a.announce_at.push_back(now + d);
      }
    }
  }

  for (auto it = added_.begin(); it != added_.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    if (auto st = kernel_.remove_address(it->second.address); !st.ok()) return ReconcileResult::retry(st.error());
    ctx.log().info("address removed", {{"id", it->first}});
    it = added_.erase(it);
  }

  std::optional<SteadyTime> next;
  for (auto& [id, a] : added_) {
    while (!a.announce_at.empty() && a.announce_at.front() <= now) {
      a.announce_at.erase(a.announce_at.begin());
      for (const auto& [name, link] : links) {
        if (link.index != a.address.link_index) continue;
        if (auto st = kernel_.announce(link, a.ip); !st.ok()) ctx.log().warn("announcing an address", {{"id", id}, {"error", st.error().message()}});
      }
    }
    if (!a.announce_at.empty() && (!next || a.announce_at.front() < *next)) next = a.announce_at.front();
  }
  if (next) return ReconcileResult::requeue_after(*next - now);
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
