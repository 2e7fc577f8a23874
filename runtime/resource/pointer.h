// Kind and Pointer: how callers name what they read. A Kind is a (namespace, type) pair, the
// unit of storage, locking and watching; a Pointer is a Kind plus an id.
//
//   Kind members{"cluster", "Members.cluster.talos.dev"};
//   Pointer me = members.at("node-1");
//   me.to_string() == "Members.cluster.talos.dev(cluster/node-1)"
#pragma once

#include <compare>
#include <functional>
#include <string>

#include "runtime/resource/atom.h"

namespace cosi {

struct Pointer;

struct Kind {
  Atom ns;
  Atom type;

  Pointer at(std::string id) const;
  // "Members.cluster.talos.dev(cluster)"
  std::string to_string() const;

  friend bool operator==(const Kind&, const Kind&) = default;
  friend auto operator<=>(const Kind&, const Kind&) = default;
};

struct Pointer {
  Atom ns;
  Atom type;
  std::string id;

  Kind kind() const { return {ns, type}; }
  // "Members.cluster.talos.dev(cluster/node-1)"
  std::string to_string() const;

  friend bool operator==(const Pointer&, const Pointer&) = default;
  friend auto operator<=>(const Pointer&, const Pointer&) = default;
};

inline Pointer Kind::at(std::string id) const { return {ns, type, std::move(id)}; }

}  // namespace cosi

// Not noexcept on purpose: libstdc++ then caches each node's hash in unordered containers
// keyed by Pointer, so rehashing and bucket walks do not hash ids again.
template <>
struct std::hash<cosi::Pointer> {
  std::size_t operator()(const cosi::Pointer& p) const {
    return std::hash<cosi::Atom>{}(p.type) ^ (std::hash<std::string>{}(p.id) * 31);
  }
};

template <>
struct std::hash<cosi::Kind> {
  std::size_t operator()(const cosi::Kind& kind) const noexcept {
    std::size_t h = std::hash<cosi::Atom>{}(kind.ns);
    return h ^ (std::hash<cosi::Atom>{}(kind.type) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
};
