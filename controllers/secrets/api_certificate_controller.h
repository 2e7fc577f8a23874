// ApiCertificateController: the TLS material the node's API serves and forwards with
// (secrets/ApiCertificates "api"), from the machine config, the node's addresses and hostname.
//
//   control plane  signs its own server certificate with the OS CA key from the config (SANs:
//                  the node's addresses and hostname, and machine.certSANs), and a client
//                  certificate with role os:impersonator for forwarding calls to other nodes
//   worker         holds no CA key: sends a CSR to a control plane's trustd (port 50001) —
//                  each one discovery knows, then the host of cluster.controlPlane.endpoint —
//                  authenticated by machine.token; retried with backoff until one answers
// Certificates last a day and are renewed at half-life, or at once when the CA or the names
// change.
#pragma once

#include <functional>
#include <string>

#include "runtime/base/result.h"
#include "runtime/controller/controller.h"

namespace cosi::controllers {

struct TrustdRequest {
  std::string host;
  int port = 50001;
  std::string token;
  std::string csr_pem;
  std::string ca_pem;  // the OS CA, to check the control plane's certificate against
};

struct IssuedCertificate {
  std::string ca_pem;
  std::string crt_pem;
};

// The call to trustd (an adapter the node agent provides; controllers do not dial gRPC).
using CertificateSigner = std::function<Result<IssuedCertificate>(const TrustdRequest&)>;

class ApiCertificateController final : public Controller {
 public:
  explicit ApiCertificateController(CertificateSigner signer, int trustd_port = 50001)
      : signer_(std::move(signer)), trustd_port_(trustd_port) {}

  std::string name() const override { return "secrets.APICertificateController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override;
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  CertificateSigner signer_;
  const int trustd_port_;
};

}  // namespace cosi::controllers
