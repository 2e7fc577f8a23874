// Files a controller keeps for a program it runs (certificates, a configuration): written
// whole (a temporary file renamed over the old one, owner-only), and not at all when the
// content is already there, so a program that reads them as it goes never sees half a file.
//
//   write_if_changed(dir / "server.crt", pem);
#pragma once

#include <filesystem>
#include <string>

#include "runtime/base/result.h"

namespace cosi::controllers {

Status write_if_changed(const std::filesystem::path& path, const std::string& content);

}  // namespace cosi::controllers
