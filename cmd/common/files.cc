#include "cmd/common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cosi::cmd {

namespace {

Error io_error(const std::string& what, const std::string& path) {
  return Error(ErrorKind::kInvalidArgument, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorKind::kInvalidArgument, "creating " + dir.string() + ": " + ec.message());
  std::string temp = (dir / ("." + target.filename().string() + ".tmp-" + std::to_string(getpid()))).string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return io_error("creating", temp);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto e = io_error("writing", temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return e;
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    auto e = io_error("syncing", temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return e;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    auto e = io_error("renaming over", path);
    ::unlink(temp.c_str());
    return e;
  }
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error(ErrorKind::kNotFound, path + " does not exist");
  if (std::filesystem::is_directory(path, ec)) return Error(ErrorKind::kInvalidArgument, path + " is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("reading", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace cosi::cmd
