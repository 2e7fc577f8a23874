// The gzipped tar archives Talos streams files in (the kubeconfig, as `talosctl kubeconfig`
// expects it): written with regular files only (POSIX ustar headers), read back the same way.
//
//   std::string archive = tar_gz({{"kubeconfig", yaml}});
//   auto files = untar_gz(archive);   // {"kubeconfig": yaml}
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::api {

std::string tar_gz(const std::vector<std::pair<std::string, std::string>>& files);

// The regular files of the archive by name; kInvalidArgument for what is not a gzipped tar.
Result<std::map<std::string, std::string>> untar_gz(std::string_view archive);

}  // namespace cosi::api
