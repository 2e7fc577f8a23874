#include "controllers/k8s/load_balancer/upstream_set.h"

#include <algorithm>

namespace cosi::controllers {

void UpstreamSet::assign(const std::vector<std::string>& addresses) {
  std::vector<UpstreamState> next;
  for (const auto& a : addresses) {
    if (std::any_of(next.begin(), next.end(),
                    [&](const UpstreamState& u) { return u.address == a; }))
      continue;
    if (auto* old = find(a)) {
      next.push_back(*old);
    } else {
      next.push_back({.address = a});
    }
  }
  upstreams_ = std::move(next);
}

UpstreamState* UpstreamSet::find(const std::string& address) {
  for (auto& u : upstreams_) {
    if (u.address == address) return &u;
  }
  return nullptr;
}

void UpstreamSet::check_passed(const std::string& address, std::chrono::microseconds latency) {
  auto* u = find(address);
  if (u == nullptr) return;
  u->latency = latency;
  u->score = std::min(u->score + 1, 3);
  if (++u->good_in_a_row >= 2) u->healthy = true;
}

void UpstreamSet::failed(const std::string& address) {
  auto* u = find(address);
  if (u == nullptr) return;
  u->healthy = false;
  u->good_in_a_row = 0;
  u->score = std::max(u->score - 1, -3);
}

void UpstreamSet::opened(const std::string& address) {
  if (auto* u = find(address)) ++u->active;
}

void UpstreamSet::closed(const std::string& address) {
  if (auto* u = find(address); u != nullptr && u->active > 0) --u->active;
}

int UpstreamSet::tier(std::chrono::microseconds latency) {
  int t = 0;
  for (auto bound = std::chrono::microseconds(1000); latency >= bound && t < 4; bound *= 5) ++t;
  return t;
}

std::vector<std::string> UpstreamSet::dial_order() const {
  std::vector<std::string> out;
  dial_order_into(out);
  return out;
}

void UpstreamSet::dial_order_into(std::vector<std::string>& out) const {
  // At most a handful of upstreams: an insertion sort on indices, stable, with no allocation.
  constexpr size_t kInline = 16;
  size_t inline_order[kInline];
  std::vector<size_t> heap_order;
  size_t* order = inline_order;
  if (upstreams_.size() > kInline) {
    heap_order.resize(upstreams_.size());
    order = heap_order.data();
  }
  const auto before = [&](size_t a, size_t b) {
    const auto& x = upstreams_[a];
    const auto& y = upstreams_[b];
    if (x.healthy != y.healthy) return x.healthy;
    if (!x.healthy) return false;  // the unhealthy ones keep the configured order
    const int tx = tier(x.latency), ty = tier(y.latency);
    if (tx != ty) return tx < ty;
    return x.active < y.active;
  };
  for (size_t i = 0; i < upstreams_.size(); ++i) {
    size_t j = i;
    while (j > 0 && before(i, order[j - 1])) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = i;
  }
  out.resize(upstreams_.size());
  for (size_t i = 0; i < upstreams_.size(); ++i) out[i] = upstreams_[order[i]].address;
}

std::vector<UpstreamState> UpstreamSet::snapshot() const {
  return upstreams_;
}

bool UpstreamSet::any_healthy() const {
  return std::any_of(upstreams_.begin(), upstreams_.end(),
                     [](const UpstreamState& u) { return u.healthy; });
}

}  // namespace cosi::controllers
