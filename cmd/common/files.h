// Files the commands write and read whole: written atomically (a temp file beside the target,
// fsync, rename, fsync of the directory), so a crash leaves the old content or the new, never
// a mix.
//
//   write_file_atomically(dir + "/config.yaml", text, 0600);
//   auto text = read_file(dir + "/config.yaml");   // kNotFound when absent
#pragma once

#include <string>
#include <sys/types.h>

#include "runtime/base/result.h"

namespace cosi::cmd {

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode);

// The whole file; kNotFound when it does not exist, kInvalidArgument naming it otherwise.
Result<std::string> read_file(const std::string& path);

}  // namespace cosi::cmd
