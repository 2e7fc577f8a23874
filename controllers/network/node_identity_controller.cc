#include "controllers/network/node_identity_controller.h"

#include <arpa/inet.h>

#include "controllers/config/applied_config.h"
#include "resources/network/network_resources.h"
#include "runtime/controller/context.h"

namespace cosi::controllers {
namespace {

using namespace cosi::resources;

// "10.0.0.1/24" → NetIPPrefix; false when it is not an address with a prefix length.
bool parse_prefix(const std::string& text, common::NetIPPrefix* out) {
  auto slash = text.find('/');
  std::string ip = text.substr(0, slash);
  unsigned char bytes[16];
  int bits;
  if (inet_pton(AF_INET, ip.c_str(), bytes) == 1) {
    out->set_ip(std::string(reinterpret_cast<char*>(bytes), 4));
    bits = 32;
  } else if (inet_pton(AF_INET6, ip.c_str(), bytes) == 1) {
    out->set_ip(std::string(reinterpret_cast<char*>(bytes), 16));
    bits = 128;
  } else {
    return false;
  }
  if (slash != std::string::npos) {
    try {
      int n = std::stoi(text.substr(slash + 1));
      if (n < 0 || n > bits) return false;
      bits = n;
    } catch (...) {
      return false;
    }
  }
  out->set_prefix_length(bits);
  return true;
}

}  // namespace

std::vector<Input> NodeIdentityController::inputs() const { return {applied_config_input()}; }

std::vector<Output> NodeIdentityController::outputs() const {
  if (identity_.addresses.empty()) return {{kHostnameStatusType}};
  return {{kHostnameStatusType}, {kNodeAddressType}};
}

ReconcileResult NodeIdentityController::reconcile(ControllerContext& ctx) {
  auto cfg = applied_config(ctx);
  if (!cfg.ok()) return ReconcileResult::terminal(cfg.error());
  const std::string hostname = *cfg && !(*cfg)->hostname.empty() ? (*cfg)->hostname : identity_.hostname;
  auto host = ctx.modify<HostnameStatusSpec>(
      Metadata(kNetworkNamespace, kHostnameStatusType, std::string(kHostnameStatusId)),
      [&](HostnameStatusSpec& s) {
        auto dot = hostname.find('.');
        s.set_hostname(hostname.substr(0, dot));
        s.set_domainname(dot == std::string::npos ? "" : hostname.substr(dot + 1));
      });
  if (!host.ok()) return ReconcileResult::retry(host.error());
  if (identity_.addresses.empty()) return ReconcileResult::done();

  NodeAddressSpec addresses;
  for (const auto& a : identity_.addresses) {
    if (!parse_prefix(a, addresses.add_addresses())) {
      return ReconcileResult::terminal(Error(ErrorKind::kInvalidArgument, "node address \"" + a + "\" is not an IP address"));
    }
  }
  auto addr = ctx.modify<NodeAddressSpec>(Metadata(kNetworkNamespace, kNodeAddressType, std::string(kNodeAddressId)),
                                          [&](NodeAddressSpec& s) { s = addresses; });
  if (!addr.ok()) return ReconcileResult::retry(addr.error());
  return ReconcileResult::done();
}

}  // namespace cosi::controllers
