// Named network namespaces (/run/netns/NAME, as `ip netns add` makes them): which processes
// live in one — the inode of each /proc/PID/ns/net against the name's; zombies left out.
//
//   for (pid_t pid : pids_in_netns("cosi-demo-controlplane-1")) kill(pid, SIGKILL);
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cosi::cmd {

std::vector<pid_t> pids_in_netns(const std::string& name);

}  // namespace cosi::cmd
