// Process-wide settings for a binary that uses gRPC, called first thing in main():
//
//   int main(int argc, char** argv) { cosi::api::configure_grpc_process(); ... }
//
// - abseil's mutex deadlock detection off. Debian builds abseil without NDEBUG, so by default
//   every absl::Mutex gRPC locks or destroys went through abseil's global lock-order graph (in
//   machined serving a List of 10,000 resources, `GraphCycles::GetId` alone was 2% of the CPU,
//   behind one global lock). Our own locks are std::mutex, checked by TSan in CI.
#pragma once

namespace cosi::api {

void configure_grpc_process();

}  // namespace cosi::api
