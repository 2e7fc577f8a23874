#include "controllers/common/service_logs.h"

namespace cosi::controllers {

LogRing& ServiceLogs::ring(const std::string& service) {
  std::lock_guard lock(mu_);
  auto& r = rings_[service];
  if (!r) r = std::make_unique<LogRing>(ring_bytes_);
  return *r;
}

LogRing* ServiceLogs::find(const std::string& service) {
  std::lock_guard lock(mu_);
  auto it = rings_.find(service);
  return it == rings_.end() ? nullptr : it->second.get();
}

std::vector<std::string> ServiceLogs::services() {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, _] : rings_) out.push_back(name);
  return out;
}

}  // namespace cosi::controllers
