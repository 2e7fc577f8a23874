#include "runtime/resource/pointer.h"

namespace cosi {

std::string Kind::to_string() const {
  std::string out;
  out.reserve(type.view().size() + ns.view().size() + 2);
  out.append(type.view()).append("(").append(ns.view()).append(")");
  return out;
}

std::string Pointer::to_string() const {
  std::string out;
  out.reserve(type.view().size() + ns.view().size() + id.size() + 3);
  out.append(type.view()).append("(").append(ns.view()).append("/").append(id).append(")");
  return out;
}

}  // namespace cosi
