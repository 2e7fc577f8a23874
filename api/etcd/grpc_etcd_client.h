// The etcd client machined uses: etcdserverpb's Cluster, Maintenance, KV (Txn too), Lease and
// Watch over TLS with machined's client certificate, a deadline on every call. One client
// talks to one member.
//
//   auto client = make_grpc_etcd_client("127.5.0.10:2379", tls, 2s);
//   auto members = client->member_list();
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "controllers/etcd/etcd_client.h"

namespace cosi::etcd {

std::unique_ptr<controllers::EtcdClient> make_grpc_etcd_client(const std::string& endpoint, const controllers::EtcdTls& tls,
                                                               std::chrono::milliseconds deadline);

}  // namespace cosi::etcd
