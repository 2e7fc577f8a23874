// English singular/plural of the last word of a CamelCase name, enough for resource type
// names: Members→Member, Identities→Identity, AddressStatuses→AddressStatus,
// Addresses→Address, Infos→Info. A name is plural when it singularises to something else.
//
//   singular("EtcdStatuses") == "EtcdStatus";   is_plural("Test") == false
#pragma once

#include <string>
#include <string_view>

namespace cosi::inflection {

std::string singular(std::string_view name);
bool is_plural(std::string_view name);

}  // namespace cosi::inflection
