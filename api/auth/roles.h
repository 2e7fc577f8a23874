// Roles and the methods they may call: Talos's role table (shared/PROTOCOL.md §6) in one place.
// The front checks every call against it before anything else runs; the State view asks it
// whether a caller may read Sensitive resources.
//
//   Roles r = parse_roles({"os:reader"});
//   allowed(r, "/machine.MachineService/EtcdStatus")   // true
//   allowed(r, "/machine.MachineService/Bootstrap")    // false: os:admin only
//   allowed(r, "/machine.MachineService/Whatever")     // false: unlisted methods need os:admin
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cosi::api::auth {

enum class Role : unsigned {
  kAdmin = 1u << 0,
  kOperator = 1u << 1,
  kReader = 1u << 2,
  kEtcdBackup = 1u << 3,
  kImpersonator = 1u << 4,
};

class Roles {
 public:
  Roles() = default;
  Roles(std::initializer_list<Role> roles) {
    for (Role r : roles) add(r);
  }

  void add(Role r) { bits_ |= static_cast<unsigned>(r); }
  bool has(Role r) const { return (bits_ & static_cast<unsigned>(r)) != 0; }
  bool any_of(Roles other) const { return (bits_ & other.bits_) != 0; }
  bool empty() const { return bits_ == 0; }

  // "os:admin,os:reader": how the front passes roles to the node's own services.
  std::string to_string() const;
  // {"os:admin", "os:reader"}: one `talos-role` value each when forwarding.
  std::vector<std::string> names() const;

  friend bool operator==(Roles, Roles) = default;

 private:
  unsigned bits_ = 0;
};

// The roles among `names` (a certificate's O= values, or `talos-role` metadata); names that
// are not roles are ignored, as Talos does.
Roles parse_roles(const std::vector<std::string>& names);
// Comma-separated, as to_string writes them.
Roles parse_roles(std::string_view joined);

// The roles that may call `method` ("/package.Service/Method"). Unlisted: os:admin.
Roles required_roles(std::string_view method);
inline bool allowed(Roles caller, std::string_view method) { return caller.any_of(required_roles(method)); }

// Sensitive resources (secrets, the machine config) are for os:admin only.
inline bool may_read_sensitive(Roles caller) { return caller.has(Role::kAdmin); }

// "os:admin or os:operator": for messages.
std::string describe(Roles roles);

// Metadata a forwarding node (os:impersonator) sets to pass on its caller's roles.
inline constexpr std::string_view kTalosRoleMetadata = "talos-role";
// Metadata the front sets on the calls it hands to the node's own services; a caller's copy
// is dropped at the front.
inline constexpr std::string_view kCallerRolesMetadata = "x-cosi-caller-roles";

}  // namespace cosi::api::auth
