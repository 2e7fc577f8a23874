// MemberConnections: watches the connection to each etcd member and calls back as soon as one
// that was open is lost (or answers again after that) — a member whose process died shows in
// EtcdClusters at once rather than at the status controller's next poll. The connections are
// the controller's own (KeptClients): the one its last Status call used is the one watched, so a
// member cannot answer the poll and die before its watch began. One thread per member, blocked
// in the client's wait_for_disconnect; one not connected opens a connection itself (a Status),
// again every 250 ms or when watch() says the controller just asked it.
//
//   MemberConnections connections(kept, waker);
//   connections.watch({"127.5.0.10:2379", "127.5.0.11:2379"}, tls);   // after each poll
//
// With a client that cannot watch its connection (kUnimplemented), a member's thread ends and
// only polling remains.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "controllers/etcd/etcd_client.h"
#include "controllers/etcd/kept_clients.h"

namespace cosi::controllers {

class MemberConnections {
 public:
  // `kept` outlives this.
  MemberConnections(KeptClients& kept, std::function<void()> on_change);
  ~MemberConnections();
  MemberConnections(const MemberConnections&) = delete;
  MemberConnections& operator=(const MemberConnections&) = delete;

  // From now on exactly these endpoints ("host:port") are watched, with these credentials;
  // watching one no longer listed stops, and one not connected looks again now.
  void watch(const std::vector<std::string>& endpoints, const EtcdTls& tls);

 private:
  struct Member;
  void run(Member& m);

  KeptClients& kept_;
  const std::function<void()> on_change_;
  std::string crt_;  // the credentials the watchers were started with
  std::map<std::string, std::unique_ptr<Member>> members_;
};

}  // namespace cosi::controllers
