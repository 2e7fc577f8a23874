#include "api/install_disk_check.h"

#include <algorithm>

#include "resources/block/block_resources.h"
#include "resources/config/machine_config.h"
#include "runtime/base/quoted.h"
#include "runtime/resource/typed_resource.h"

namespace cosi::api {

std::string multierror_text(const std::vector<std::string>& errors) {
  std::string out = std::to_string(errors.size()) + (errors.size() == 1 ? " error occurred:\n\t* " : " errors occurred:\n\t* ");
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? "\n\t* " : "") + errors[i];
  return out + "\n\n";
}

Result<ApplyOutcome> InstallDiskCheck::apply(const ApplyRequest& request) {
  if (!options_.enabled) return inner_.apply(request);
  auto loaded = config::parse_machine_config(request.document);
  if (!loaded.ok() || loaded->config.install_disk.empty()) return inner_.apply(request);  // the keeper says what is wrong
  const std::string& disk = loaded->config.install_disk;
  auto disks = state_.list({resources::kRuntimeNamespace, resources::kDiskType});
  if (!disks.ok()) return disks.error();
  const bool exists = std::any_of(disks->begin(), disks->end(), [&](const ResourcePtr& r) {
    auto d = resource_cast<resources::DiskSpec>(r);
    return d && (d->spec().dev_path() == disk ||
                 std::find(d->spec().symlinks().begin(), d->spec().symlinks().end(), disk) != d->spec().symlinks().end());
  });
  if (!exists) {
    return Error(ErrorKind::kInvalidArgument,
                 "configuration validation failed: " + multierror_text({"specified install disk does not exist: " + quoted(disk)}));
  }
  return inner_.apply(request);
}

}  // namespace cosi::api
