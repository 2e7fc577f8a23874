// EtcdCertificateController: on control planes, etcd's PKI (secrets/EtcdCerts "etcd") from the
// etcd CA in the machine config: server and peer certificates for the node's addresses,
// 127.0.0.1 (peers on a shared loopback host all connect from it, and etcd 3.4 checks peer
// SANs against the source address), localhost and the hostname; and machined's client
// certificate. ECDSA P-256, a year; re-issued when the CA or the names change.
#pragma once

#include "runtime/controller/controller.h"

namespace cosi::controllers {

class EtcdCertificateController final : public Controller {
 public:
  std::string name() const override { return "secrets.EtcdController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;
};

}  // namespace cosi::controllers
