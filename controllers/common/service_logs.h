// ServiceLogs: one LogRing per service machined runs — "etcd", "apiserver", and machined's own
// log as "machined" — every ring of the same size. What MachineService.Logs reads.
//
//   ServiceLogs logs(1 << 20);
//   auto etcd = ChildProcess::start(argv, logs.ring("etcd"));
//   LogRing* r = logs.find("etcd");   // nullptr for a service that never logged
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "controllers/common/log_ring.h"

namespace cosi::controllers {

class ServiceLogs {
 public:
  explicit ServiceLogs(std::size_t ring_bytes) : ring_bytes_(ring_bytes) {}

  // The service's ring, made on first use; it lives as long as this.
  LogRing& ring(const std::string& service);
  LogRing* find(const std::string& service);
  std::vector<std::string> services();

  // Readers following a ring now (machined's metrics show it: a client that goes frees its own).
  void follower_started() { ++followers_; }
  void follower_ended() { --followers_; }
  int followers() const { return followers_; }

 private:
  std::atomic<int> followers_{0};
  const std::size_t ring_bytes_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<LogRing>> rings_;  // guarded by mu_
};

}  // namespace cosi::controllers
