#include "cmd/common/netns.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace cosi::cmd {

namespace {

// A zombie has exited; only its parent's wait is left, and it holds nothing.
bool zombie(const std::filesystem::path& proc) {
  std::ifstream in(proc / "stat");
  std::string pid, comm, state;
  in >> pid >> comm >> state;
  return state == "Z";
}

}  // namespace

std::vector<pid_t> pids_in_netns(const std::string& name) {
  std::vector<pid_t> out;
  struct stat ns{};
  if (stat(("/run/netns/" + name).c_str(), &ns) != 0) return out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat theirs{};
    if (stat((entry.path() / "ns/net").c_str(), &theirs) == 0 && theirs.st_ino == ns.st_ino && theirs.st_dev == ns.st_dev &&
        !zombie(entry.path())) {
      out.push_back(static_cast<pid_t>(std::stoi(pid)));
    }
  }
  return out;
}

}  // namespace cosi::cmd
