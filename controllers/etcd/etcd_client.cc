#include "controllers/etcd/etcd_client.h"

#include <cstdio>

namespace cosi::controllers {

std::string member_id_hex(uint64_t id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id));
  return buf;
}

}  // namespace cosi::controllers
