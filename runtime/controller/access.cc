#include "runtime/controller/access.h"

#include <algorithm>

namespace cosi {

AccessRules::AccessRules(Atom controller, std::vector<Input> inputs, std::vector<Output> outputs)
    : controller_(controller), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

bool AccessRules::writes(Atom type) const {
  return std::any_of(outputs_.begin(), outputs_.end(), [&](const Output& o) { return o.type == type; });
}

Error AccessRules::denied(std::string_view operation, const std::string& what,
                          std::string_view why) const {
  return Error(ErrorKind::kPermissionDenied, "controller \"" + controller_.str() + "\" may not " +
                                                std::string(operation) + " " + what + ": " +
                                                std::string(why));
}

Status AccessRules::check_read(const Pointer& p) const {
  if (writes(p.type)) return {};
  if (std::any_of(inputs_.begin(), inputs_.end(), [&](const Input& i) { return i.covers(p); })) {
    return {};
  }
  return denied("read", p.to_string(), "it is not among its inputs or outputs");
}

Status AccessRules::check_list(const Kind& k) const {
  if (writes(k.type)) return {};
  bool whole = std::any_of(inputs_.begin(), inputs_.end(), [&](const Input& i) {
    return i.ns == k.ns && i.type == k.type && !i.id;
  });
  if (whole) return {};
  return denied("list", k.to_string(), "listing needs an input on the whole kind");
}

Status AccessRules::check_write(const Pointer& p) const {
  if (writes(p.type)) return {};
  return denied("write", p.to_string(), "its type is not among its outputs");
}

Status AccessRules::check_finalizer(const Pointer& p) const {
  bool strong = std::any_of(inputs_.begin(), inputs_.end(), [&](const Input& i) {
    return i.kind == InputKind::kStrong && i.covers(p);
  });
  if (strong) return {};
  return denied("edit finalizers of", p.to_string(), "only Strong inputs may carry its finalizers");
}

}  // namespace cosi
