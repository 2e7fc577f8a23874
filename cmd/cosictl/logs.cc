// cosictl logs SERVICE [-f] [--tail N]: a service's log on each node (-n a,b), each line printed
// "NODE: line" as talosctl prints it — the last N lines (all by default), then with -f what
// comes, from every node at once, until interrupted.
#include <cstdio>
#include <mutex>
#include <thread>

#include "cmd/cosictl/commands.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {
namespace {

// Prints whole lines, each with its node, one line at a time whatever the number of streams.
class LinePrinter {
 public:
  void print(const std::string& node, std::string& pending, const std::string& bytes) {
    pending += bytes;
    std::string out;
    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
      out += node + ": " + pending.substr(0, nl) + "\n";
      pending.erase(0, nl + 1);
    }
    if (out.empty()) return;
    std::lock_guard lock(mu_);
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
  }

 private:
  std::mutex mu_;
};

Status stream(const Connection& c, const std::string& node, const LogsOptions& o, LinePrinter& printer) {
  auto stub = machine::MachineService::NewStub(c.channel());
  auto ctx = c.context(node, /*bounded=*/!o.follow);
  machine::LogsRequest req;
  req.set_namespace_("system");
  req.set_id(o.service);
  req.set_driver(common::CONTAINERD);
  req.set_follow(o.follow);
  req.set_tail_lines(o.tail);
  auto reader = stub->Logs(ctx.get(), req);
  common::Data data;
  std::string pending;
  while (reader->Read(&data)) {
    if (!data.metadata().error().empty()) std::fprintf(stderr, "ERROR: %s\n", data.metadata().error().c_str());
    printer.print(node, pending, data.bytes());
  }
  if (!pending.empty()) printer.print(node, pending, "\n");
  auto s = reader->Finish();
  if (!s.ok() && s.error_code() != grpc::StatusCode::CANCELLED) {
    Error e = c.error(s);
    return Error(e.kind(), "error getting logs: " + node + ": " + e.message());
  }
  return {};
}

}  // namespace

Status run_logs(const Connection& c, const LogsOptions& o) {
  if (o.service.empty()) return Error(ErrorKind::kInvalidArgument, "logs needs a service: etcd, machined, apiserver, ...");
  LinePrinter printer;
  std::vector<Status> results(c.nodes().size());
  std::vector<std::thread> streams;
  for (std::size_t i = 0; i < c.nodes().size(); ++i) {
    streams.emplace_back([&, i] { results[i] = stream(c, c.nodes()[i], o, printer); });
  }
  for (auto& t : streams) t.join();
  for (const auto& r : results) {
    if (!r.ok()) return r;
  }
  return {};
}

}  // namespace cosi::cosictl
