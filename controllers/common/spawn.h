// Starting a program with its stdin from /dev/null and its stdout and stderr appended to a log
// file, holding none of the caller's other descriptors and none of its blocked signals —
// how machined runs etcd and how cosictl runs a local cluster's daemons, optionally inside a
// named network namespace (/run/netns/NAME, as `ip netns add` makes them). A program without a
// slash is looked up in PATH.
//
//   auto pid = spawn_logged({"etcd", "--name=cp-1"}, "/var/lib/machined/etcd/etcd.log", Session::kSame);
//   auto node = spawn_logged({"machined", "--host-network"}, "cp-1.log", Session::kOwn, "cosi-demo-controlplane-1");
//   auto etcd = spawn_piped({"etcd", "--name=cp-1"}, Session::kSame);   // read etcd->output
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::controllers {

enum class Session {
  kSame,  // a child the caller supervises (and reaps)
  kOwn,   // a daemon that outlives the caller (setsid)
};

Result<pid_t> spawn_logged(const std::vector<std::string>& argv, const std::string& log_path, Session session,
                           const std::string& netns = "");

// The same, with stdout and stderr on a pipe whose read end (close-on-exec) is returned instead
// of a log file: how machined keeps a service's output in a bounded ring.
struct PipedChild {
  pid_t pid = -1;
  int output = -1;  // the caller's to read and close
};
Result<PipedChild> spawn_piped(const std::vector<std::string>& argv, Session session);

// Runs a short command to completion within `deadline` — how cosictl drives iproute2 for a
// local cluster's network — and returns its output (stdout and stderr together); inside the
// network namespace `netns` when one is named (entered directly: `ip -n` and `ip netns exec`
// also remount /, which a chroot refuses). A command that fails or outlives the deadline (it
// is killed then) is an error naming it, its status and what it printed.
//
//   auto out = run_command({"ip", "netns", "add", "cosi-demo-controlplane-1"}, 10s);
//   run_command({"ip", "link", "set", "lo", "up"}, 10s, "cosi-demo-controlplane-1");
Result<std::string> run_command(const std::vector<std::string>& argv, std::chrono::milliseconds deadline, const std::string& netns = "");

}  // namespace cosi::controllers
