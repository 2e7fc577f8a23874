// A one-member etcd for tests of etcd clients: plaintext on `ip`:2379, fast raft timings, its
// data in a temporary directory; healthy (a leader) when the constructor returns, stopped and
// wiped by the destructor. Each test its own 127.N address.
//
//   SoloEtcd etcd("127.29.0.1");
//   auto client = etcd::make_grpc_etcd_client(etcd.endpoint(), {}, 2s);
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>

#include "api/etcd/grpc_etcd_client.h"
#include "test/support/eventually.h"
#include "test/support/process.h"

namespace cosi::testing {

struct SoloEtcd {
  explicit SoloEtcd(const std::string& ip)
      : ip(ip), dir(std::filesystem::temp_directory_path() / ("cosi-etcd-" + ip + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    process = std::make_unique<Process>(std::vector<std::string>{
        "etcd", "--name=solo", "--data-dir=" + dir.string(), "--listen-client-urls=http://" + ip + ":2379",
        "--advertise-client-urls=http://" + ip + ":2379", "--listen-peer-urls=http://" + ip + ":2380",
        "--initial-advertise-peer-urls=http://" + ip + ":2380", "--initial-cluster=solo=http://" + ip + ":2380",
        "--heartbeat-interval=50", "--election-timeout=300"});
    client = etcd::make_grpc_etcd_client(endpoint(), {}, std::chrono::seconds(2));
    REQUIRE(eventually([&] { auto s = client->status(); return s.ok() && s->leader != 0; }, in_seconds(20),
                       std::chrono::milliseconds(50)));
  }
  ~SoloEtcd() {
    process->stop();
    std::filesystem::remove_all(dir);
  }
  std::string endpoint() const { return ip + ":2379"; }

  std::string ip;
  std::filesystem::path dir;
  std::unique_ptr<Process> process;
  std::unique_ptr<controllers::EtcdClient> client;
};

}  // namespace cosi::testing
