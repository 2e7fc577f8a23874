// AccessRules: what one controller may do, from its declarations. The runtime checks every
// call a controller makes through its ControllerContext against them:
//
//   read    a resource covered by an input (kind, and id if the input names one), or of an
//           output type
//   list    a kind with a whole-kind input (no id), or of an output type
//   write   resources of an output type only; every write carries the controller as owner
//   finalizers  only on resources covered by a Strong input
//
// A refusal is kPermissionDenied naming the controller, the operation and the resource.
#pragma once

#include <vector>

#include "runtime/base/result.h"
#include "runtime/controller/controller.h"

namespace cosi {

class AccessRules {
 public:
  AccessRules(Atom controller, std::vector<Input> inputs, std::vector<Output> outputs);

  Atom controller() const { return controller_; }
  const std::vector<Input>& inputs() const { return inputs_; }
  const std::vector<Output>& outputs() const { return outputs_; }

  Status check_read(const Pointer& pointer) const;
  Status check_list(const Kind& kind) const;
  Status check_write(const Pointer& pointer) const;
  Status check_finalizer(const Pointer& pointer) const;

  bool writes(Atom type) const;

 private:
  Error denied(std::string_view operation, const std::string& what, std::string_view why) const;

  Atom controller_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
};

}  // namespace cosi
