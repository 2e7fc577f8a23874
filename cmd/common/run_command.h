// Running a short command to completion with a deadline — how cosictl drives iproute2 for a
// local cluster's network. Its output (stdout and stderr together) comes back; a command that
// fails or outlives the deadline (it is killed then) is an error naming it, its status and
// what it printed.
//
//   auto out = run_command({"ip", "netns", "add", "cosi-demo-controlplane-1"}, 10s);
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::cmd {

Result<std::string> run_command(const std::vector<std::string>& argv, std::chrono::milliseconds deadline);

}  // namespace cosi::cmd
