// The VIP election in etcd, as etcd's concurrency/election runs it and Talos uses it: each
// candidate puts `<key>/<lease id in hex>` = its name on a lease of its own; the key with the
// lowest create revision leads; a key goes when its holder resigns or its lease expires.
//
// Two threads per campaign. The campaign thread grants the lease, creates the key with a Txn
// that reads it back when it exists (so a Txn whose answer was lost is never guessed about),
// then reads who leads (the oldest key of the prefix) and watches the prefix for the next
// change. The lease thread sends a keep-alive every TTL/4; each one answered moves
// `valid_until` to (when it was sent) + TTL − margin: the lease cannot have expired by then,
// whatever happened since. A lease found expired starts the campaign over.
//
//   auto election = make_etcd_vip_election(options, etcd::make_grpc_etcd_client);
#pragma once

#include <memory>

#include "controllers/etcd/etcd_client.h"
#include "controllers/network/vip_election.h"

namespace cosi::controllers {

// How far before the lease could expire the holder stops holding: it covers the kernel's
// late removal of an expired address (up to a quarter second) and the keep-alive's travel.
inline constexpr std::chrono::milliseconds kVipLeaseMargin{500};

std::unique_ptr<VipElection> make_etcd_vip_election(VipElectionOptions options, EtcdClientFactory clients);

}  // namespace cosi::controllers
