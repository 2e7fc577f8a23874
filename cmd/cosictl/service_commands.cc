// cosictl service [NAME [start|stop|restart|status]]: MachineService's service calls on each
// node, printed as talosctl prints them — the list as NODE SERVICE STATE HEALTH LAST CHANGE
// LAST EVENT, one service as a NODE/ID/STATE/HEALTH block with its events newest first, and
// the actions as NODE RESPONSE.
#include <google/protobuf/empty.pb.h>

#include <chrono>
#include <cstdio>

#include "cmd/cosictl/commands.h"
#include "cmd/cosictl/output.h"
#include "machine.grpc.pb.h"

namespace cosi::cosictl {

namespace {

// How long ago `ts` was, rounded to the second, written as Go's time.Duration prints it.
std::string ago(const google::protobuf::Timestamp& ts) {
  const auto then = std::chrono::system_clock::time_point(std::chrono::seconds(ts.seconds()) + std::chrono::nanoseconds(ts.nanos()));
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now() - then).count();
  return go_duration_seconds((ms + (ms >= 0 ? 500 : -500)) / 1000);
}

std::string health(const machine::ServiceInfo& s) {
  if (s.health().unknown()) return "?";
  return s.health().healthy() ? "OK" : "Fail";
}

Error node_error(const Connection& c, const std::string& node, const grpc::Status& s) {
  Error e = c.error(s);
  return Error(e.kind(), node + ": " + e.message());
}

Status list(const Connection& c, const std::string& only) {
  auto stub = machine::MachineService::NewStub(c.channel());
  TabWriter table;
  table.row({"NODE", "SERVICE", "STATE", "HEALTH", "LAST CHANGE", "LAST EVENT"});
  std::string block;
  bool found = false;
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    machine::ServiceListResponse resp;
    auto s = stub->ServiceList(ctx.get(), google::protobuf::Empty(), &resp);
    if (!s.ok()) return node_error(c, node, s);
    for (const auto& m : resp.messages()) {
      for (const auto& svc : m.services()) {
        const auto& events = svc.events().events();
        if (only.empty()) {
          table.row({node, svc.id(), svc.state(), health(svc), (events.empty() ? std::string() : ago(events.rbegin()->ts())) + " ago",
                     events.empty() ? "<none>" : events.rbegin()->msg()});
          continue;
        }
        if (svc.id() != only) continue;
        found = true;
        TabWriter one;
        one.row({"NODE", node});
        one.row({"ID", svc.id()});
        one.row({"STATE", svc.state()});
        one.row({"HEALTH", health(svc)});
        if (!svc.health().last_message().empty()) one.row({"LAST HEALTH MESSAGE", svc.health().last_message()});
        const char* label = "EVENTS";
        for (auto e = events.rbegin(); e != events.rend(); ++e) {
          one.row({label, "[" + e->state() + "]: " + e->msg() + " (" + ago(e->ts()) + " ago)"});
          label = "";
        }
        block += one.render();
      }
    }
  }
  if (!only.empty()) {
    if (!found) return Error(ErrorKind::kNotFound, "service \"" + only + "\" is not registered on any nodes");
    std::fputs(block.c_str(), stdout);
    return {};
  }
  std::fputs(table.render().c_str(), stdout);
  return {};
}

template <class Request, class Response>
using Call = grpc::Status (machine::MachineService::Stub::*)(grpc::ClientContext*, const Request&, Response*);

template <class Request, class Response>
Status act(const Connection& c, Call<Request, Response> call, const std::string& id) {
  auto stub = machine::MachineService::NewStub(c.channel());
  Request req;
  req.set_id(id);
  TabWriter table;
  table.row({"NODE", "RESPONSE"});
  for (const auto& node : c.nodes()) {
    auto ctx = c.context(node);
    Response resp;
    auto s = (stub.get()->*call)(ctx.get(), req, &resp);
    if (!s.ok()) return node_error(c, node, s);
    for (const auto& m : resp.messages()) table.row({node, m.resp()});
  }
  std::fputs(table.render().c_str(), stdout);
  return {};
}

}  // namespace

std::string go_duration_seconds(int64_t seconds) {
  if (seconds == 0) return "0s";
  std::string out = seconds < 0 ? "-" : "";
  int64_t s = seconds < 0 ? -seconds : seconds;
  const int64_t h = s / 3600, m = s / 60 % 60;
  s %= 60;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + std::to_string(s) + "s";
}

Status run_service(const Connection& c, const std::vector<std::string>& args) {
  if (args.size() > 2) return Error(ErrorKind::kInvalidArgument, "service takes at most a service id and an action");
  const std::string id = args.empty() ? "" : args[0];
  const std::string action = args.size() == 2 ? args[1] : "status";
  if (action == "status") return list(c, id);
  if (action == "start") return act(c, &machine::MachineService::Stub::ServiceStart, id);
  if (action == "stop") return act(c, &machine::MachineService::Stub::ServiceStop, id);
  if (action == "restart") return act(c, &machine::MachineService::Stub::ServiceRestart, id);
  return Error(ErrorKind::kInvalidArgument, "unsupported service action: \"" + action + "\" (start, stop, restart or status)");
}

}  // namespace cosi::cosictl
