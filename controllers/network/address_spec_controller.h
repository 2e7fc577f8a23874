// AddressSpecController: puts the addresses AddressSpecs ask for on their links, with the
// kernel, and takes off the ones it put there once they are no longer asked for. An address
// it did not add is never touched, whatever the specs say.
//
// An AddressSpec with a valid-until annotation (addressing.h) is added with a kernel lifetime
// that ends by then, refreshed whenever the annotation moves, and not added at all with less
// than a second left. One with announce-with-ARP is announced to the segment after each time
// it is added: four times over its first second (now, +250 ms, +500 ms, +1 s), so a neighbour
// that missed one packet still switches within the second.
//
//   runtime.add(std::make_unique<AddressSpecController>(*kernel));
#pragma once

#include <map>
#include <string>
#include <vector>

#include "controllers/network/kernel.h"
#include "runtime/controller/controller.h"
#include "runtime/exec/clock.h"

namespace cosi::controllers {

class AddressSpecController final : public Controller {
 public:
  explicit AddressSpecController(NetworkKernel& kernel) : kernel_(kernel) {}

  std::string name() const override { return "network.AddressSpecController"; }
  std::vector<Input> inputs() const override;
  std::vector<Output> outputs() const override { return {}; }
  ReconcileResult reconcile(ControllerContext& ctx) override;

 private:
  struct Added {
    KernelAddress address;
    std::string valid_until;       // the annotation it was last applied with ("" for none)
    std::vector<SteadyTime> announce_at;  // announcements still to send
    std::string ip;                // bytes, for announcing
  };

  NetworkKernel& kernel_;
  std::map<std::string, Added> added_;  // by AddressSpec id; only the controller's pass touches it
};

}  // namespace cosi::controllers
