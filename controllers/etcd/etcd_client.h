// What machined needs from etcd: Cluster, Maintenance, KV, Lease and Watch calls against one
// member's client URL, each with a deadline. Controllers do not dial gRPC: machined injects the real
// client (api/etcd/grpc_etcd_client.h), unit tests a fake. A learner answers only Status, so
// membership calls go to a voting member.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/result.h"

namespace cosi::controllers {

struct EtcdMemberInfo {
  uint64_t id = 0;
  std::string name;  // empty until the member has started
  std::vector<std::string> peer_urls;
  std::vector<std::string> client_urls;
  bool is_learner = false;
};

struct EtcdMemberStatus {
  std::string version;  // the server's, "3.4.23"
  int64_t db_size = 0;
  int64_t db_size_in_use = 0;
  uint64_t leader = 0;
  uint64_t raft_index = 0;
  uint64_t raft_term = 0;
  uint64_t raft_applied_index = 0;
  bool is_learner = false;
  uint64_t member_id = 0;
  std::vector<std::string> errors;
};

struct EtcdTls {
  std::string ca;   // PEM
  std::string crt;  // client certificate, PEM
  std::string key;
};

struct EtcdKeyValue {
  std::string key;
  std::string value;
  int64_t mod_revision = 0;
  int64_t lease = 0;
  int64_t create_revision = 0;
};

// A Range beyond one key: [key, range_end) (a prefix: prefix_end(prefix)), sorted by create
// revision, at most `limit` keys (0: all), only keys created at or before
// `max_create_revision` (0: any).
struct EtcdRangeOptions {
  enum class Sort { kNone, kCreateAscending, kCreateDescending };
  std::string range_end;
  Sort sort = Sort::kNone;
  int64_t limit = 0;
  int64_t max_create_revision = 0;
};

struct EtcdRange {
  std::vector<EtcdKeyValue> kvs;
  int64_t revision = 0;  // the store's revision the read saw
};

// One compare of a Txn on a key's revisions: `target` of `key` `op` `value`, e.g. "create
// revision of k == 0" (k does not exist).
struct EtcdCompare {
  enum class Target { kVersion, kCreateRevision, kModRevision, kLease };
  enum class Op { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kCreateRevision;
  Op op = Op::kEqual;
  int64_t value = 0;
};

// One operation of a Txn branch.
struct EtcdTxnOp {
  enum class Kind { kGet, kPut, kDelete };
  Kind kind = Kind::kGet;
  std::string key;
  std::string value;  // kPut
  int64_t lease = 0;  // kPut

  static EtcdTxnOp get(std::string key) { return {Kind::kGet, std::move(key), "", 0}; }
  static EtcdTxnOp put(std::string key, std::string value, int64_t lease = 0) {
    return {Kind::kPut, std::move(key), std::move(value), lease};
  }
  static EtcdTxnOp remove(std::string key) { return {Kind::kDelete, std::move(key), "", 0}; }
};

struct EtcdTxnResult {
  bool succeeded = false;          // the compares held: the `then` branch ran
  int64_t revision = 0;            // the store's revision after the Txn
  std::vector<EtcdKeyValue> got;   // what the kGet ops of the branch that ran read, in order
};

struct EtcdWatchEvent {
  bool deleted = false;
  EtcdKeyValue kv;
};

struct EtcdAlarm {
  uint64_t member_id = 0;
  int type = 0;  // 1 NOSPACE, 2 CORRUPT (etcdserverpb.AlarmType)
};

class EtcdClient {
 public:
  virtual ~EtcdClient() = default;
  virtual Result<std::vector<EtcdMemberInfo>> member_list() = 0;
  // MemberAdd{isLearner: true}; the new member's id.
  virtual Result<uint64_t> add_learner(const std::vector<std::string>& peer_urls) = 0;
  virtual Status promote(uint64_t id) = 0;
  virtual Status remove(uint64_t id) = 0;
  virtual Result<EtcdMemberStatus> status() = 0;
  virtual Status move_leader(uint64_t to) = 0;
  virtual Result<std::vector<EtcdAlarm>> alarms() = 0;
  virtual Status disarm(const EtcdAlarm& alarm) = 0;
  virtual Status defragment() = 0;
  // Streams this member's snapshot into `sink`, chunk by chunk.
  virtual Status snapshot(const std::function<Status(std::string_view)>& sink) = 0;

  // KV. `range_end` empty: the key alone. Put returns the new revision, delete the count.
  virtual Result<int64_t> put(const std::string& key, const std::string& value, int64_t lease = 0) = 0;
  virtual Result<std::vector<EtcdKeyValue>> range(const std::string& key, const std::string& range_end = "") = 0;
  virtual Result<int64_t> remove_range(const std::string& key, const std::string& range_end = "") = 0;
  virtual Result<EtcdRange> range_with(const std::string& key, const EtcdRangeOptions& options) = 0;
  // If every compare holds, `then`, else `otherwise`, atomically.
  virtual Result<EtcdTxnResult> txn(const std::vector<EtcdCompare>& compares, const std::vector<EtcdTxnOp>& then,
                                    const std::vector<EtcdTxnOp>& otherwise) = 0;
  // Leases: grant (the lease id), one keep-alive round on a LeaseKeepAlive stream (the TTL the
  // lease has again, in seconds; kNotFound once it has expired), revoke.
  virtual Result<int64_t> grant_lease(std::chrono::seconds ttl) = 0;
  virtual Result<int64_t> keep_alive(int64_t lease) = 0;
  virtual Status revoke_lease(int64_t lease) = 0;
  // Watches [key, range_end) from `start_revision` (0: from now), handing each batch of events
  // to `on_events` until it returns false or `for_at_most` has passed (then kDeadlineExceeded).
  virtual Status watch(const std::string& key, const std::string& range_end, int64_t start_revision,
                       const std::function<bool(const std::vector<EtcdWatchEvent>&)>& on_events,
                       std::chrono::milliseconds for_at_most) = 0;

  // Blocks until this client's connection, open when called, is lost (the member stopped, its
  // process died, the network went): true then; false when `for_at_most` passed with it open.
  // kFailedPrecondition when no connection was open; kUnimplemented from a client that cannot
  // tell.
  virtual Result<bool> wait_for_disconnect(std::chrono::milliseconds for_at_most) {
    (void)for_at_most;
    return Error(ErrorKind::kUnimplemented, "this etcd client cannot watch its connection");
  }
};

// A client for the member at `endpoint` ("host:port"); every call within `deadline`.
using EtcdClientFactory =
    std::function<std::unique_ptr<EtcdClient>(const std::string& endpoint, const EtcdTls& tls, std::chrono::milliseconds deadline)>;

// "%016x", as Talos prints member ids.
std::string member_id_hex(uint64_t id);

// The range end that makes [prefix, end) every key starting with `prefix` (etcd's
// GetPrefixRangeEnd): the prefix with its last byte below 0xff incremented and what follows it
// dropped; "\0" (every key) when there is no such byte.
std::string prefix_end(std::string_view prefix);

}  // namespace cosi::controllers
