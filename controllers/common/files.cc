#include "controllers/common/files.h"

#include <fstream>
#include <sstream>

namespace cosi::controllers {

namespace fs = std::filesystem;

Status write_if_changed(const fs::path& path, const std::string& content) {
  std::ifstream in(path);
  std::stringstream current;
  current << in.rdbuf();
  if (in.good() && current.str() == content) return {};
  const fs::path temp = path.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << content;
    if (!out.good()) return Error(ErrorKind::kInternal, "cannot write " + temp.string());
  }
  fs::permissions(temp, fs::perms::owner_read | fs::perms::owner_write);
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) return Error(ErrorKind::kInternal, "cannot write " + path.string() + ": " + ec.message());
  return {};
}

}  // namespace cosi::controllers
