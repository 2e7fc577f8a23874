#include "api/auth/roles.h"

#include <array>
#include <utility>

namespace cosi::api::auth {

namespace {

constexpr std::array<std::pair<Role, std::string_view>, 5> kNames = {{
    {Role::kAdmin, "os:admin"},
    {Role::kOperator, "os:operator"},
    {Role::kReader, "os:reader"},
    {Role::kEtcdBackup, "os:etcd:backup"},
    {Role::kImpersonator, "os:impersonator"},
}};

const Roles kReaders{Role::kAdmin, Role::kOperator, Role::kReader};
const Roles kEtcdReaders{Role::kAdmin, Role::kOperator, Role::kReader, Role::kEtcdBackup};
const Roles kOperators{Role::kAdmin, Role::kOperator};
const Roles kAdmins{Role::kAdmin};

struct MethodRoles {
  std::string_view method;
  Roles roles;
};

// Every method a role below admin may call. Anything else needs os:admin.
const std::array<MethodRoles, 22> kTable = {{
    {"/cosi.resource.State/Get", kReaders},
    {"/cosi.resource.State/List", kReaders},
    {"/cosi.resource.State/Watch", kReaders},
    {"/machine.MachineService/Version", kReaders},
    {"/machine.MachineService/EtcdMemberList", kEtcdReaders},
    {"/machine.MachineService/EtcdStatus", kEtcdReaders},
    {"/machine.MachineService/EtcdAlarmList", kEtcdReaders},
    {"/machine.MachineService/EtcdSnapshot", Roles{Role::kAdmin, Role::kOperator, Role::kEtcdBackup}},
    {"/machine.MachineService/EtcdAlarmDisarm", kOperators},
    {"/machine.MachineService/EtcdDefragment", kOperators},
    {"/machine.MachineService/ServiceList", kReaders},
    {"/machine.MachineService/Logs", kReaders},
    {"/machine.MachineService/ServiceStart", kOperators},
    {"/machine.MachineService/ServiceStop", kOperators},
    {"/machine.MachineService/ServiceRestart", kOperators},
    {"/inspect.InspectService/ControllerRuntimeDependencies", kReaders},
    {"/machine.MachineService/Bootstrap", kAdmins},
    {"/machine.MachineService/Reset", kAdmins},
    {"/machine.MachineService/EtcdLeaveCluster", kAdmins},
    {"/machine.MachineService/EtcdRemoveMemberByID", kAdmins},
    {"/machine.MachineService/EtcdForfeitLeadership", kAdmins},
    {"/machine.MachineService/ApplyConfiguration", kAdmins},
}};

}  // namespace

std::vector<std::string> Roles::names() const {
  std::vector<std::string> out;
  for (const auto& [role, name] : kNames) {
    if (has(role)) out.emplace_back(name);
  }
  return out;
}

std::string Roles::to_string() const {
  std::string out;
  for (const auto& name : names()) out += (out.empty() ? "" : ",") + name;
  return out;
}

Roles parse_roles(const std::vector<std::string>& names) {
  Roles out;
  for (const auto& n : names) {
    for (const auto& [role, name] : kNames) {
      if (n == name) out.add(role);
    }
  }
  return out;
}

Roles parse_roles(std::string_view joined) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= joined.size()) {
    size_t comma = joined.find(',', start);
    names.emplace_back(joined.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parse_roles(names);
}

Roles required_roles(std::string_view method) {
  for (const auto& entry : kTable) {
    if (entry.method == method) return entry.roles;
  }
  return kAdmins;
}

std::string describe(Roles roles) {
  std::string out;
  for (const auto& [role, name] : kNames) {
    if (roles.has(role)) out += (out.empty() ? "" : " or ") + std::string(name);
  }
  return out.empty() ? "no role" : out;
}

}  // namespace cosi::api::auth
