#include "api/grpc_process.h"

#include <absl/synchronization/mutex.h>

namespace cosi::api {

void configure_grpc_process() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

}  // namespace cosi::api
