#include "controllers/etcd/etcd_controller.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "controllers/common/files.h"
#include "controllers/common/service_request.h"
#include "resources/etcd/etcd_resources.h"
#include "resources/v1alpha1/v1alpha1_resources.h"

namespace cosi::controllers {

using namespace cosi::resources;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr auto kCallDeadline = 2s;
// How often a control plane without etcd looks for a cluster to join (a refused connection
// costs little); how often it looks again while another node's learner holds etcd's one learner
// place (that place frees within a few hundred milliseconds, and the next learner should not
// wait long for it); and how often a learner asks to be promoted (over a connection it keeps:
// a refusal is one round trip).
constexpr auto kJoinPoll = 25ms;
constexpr auto kLearnerPlacePoll = 10ms;
constexpr auto kPromotePoll = 10ms;
constexpr auto kHealthWindowPoll = 100ms;
// A learner still without a name this long after we first saw it was added by a node that
// never started it (it crashed between MemberAdd and starting etcd): it would hold etcd's one
// learner place for good (talos#13710), so it is removed.
constexpr auto kAbandonedLearner = 30s;
// A learner that started and then died (its node gone for good) never catches up and holds the
// place as surely: once it has not answered for this long, it is removed too. A learner that
// answers is catching up, however slowly, and is waited for.
constexpr auto kDeadLearner = 60s;

// Control planes that join together take the learner place in the order of their addresses (as
// text: any order every node computes alike will do):
// one that sees the place free waits this long for each control plane before it, not yet a
// member, to take it first. Two MemberAdds racing cost the loser kMemberChangeDeadline; the
// one before has its MemberAdd applied within one poll and a commit.
constexpr auto kJoinStagger = 75ms;

// The other control planes, not yet members, whose addresses order before this node's.
int joiners_ahead(const EtcdView& v, const std::vector<EtcdMemberInfo>& members) {
  auto host = [](std::string endpoint) {
    endpoint = endpoint.substr(0, endpoint.rfind(':'));
    if (endpoint.size() >= 2 && endpoint.front() == '[') endpoint = endpoint.substr(1, endpoint.size() - 2);
    return endpoint;
  };
  int ahead = 0;
  for (const auto& peer : v.peers) {
    const std::string h = host(peer);
    if (h >= v.ip) continue;
    const bool member = std::any_of(members.begin(), members.end(), [&](const EtcdMemberInfo& m) {
      return std::any_of(m.peer_urls.begin(), m.peer_urls.end(), [&](const std::string& url) { return host(endpoint_of(url)) == h; });
    });
    if (!member) ++ahead;
  }
  return ahead;
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

// etcd's refusal to promote a learner that has not caught up yet (ErrLearnerNotReady): "can only
// promote a learner member which is in sync with leader".
bool learner_not_ready(const Error& e) { return contains(e.message(), "in sync with leader"); }

constexpr std::string_view kService = "etcd";

}  // namespace

std::vector<Input> EtcdController::inputs() const {
  auto in = etcd_view_inputs();
  in.push_back(service_request_input(kService));
  return in;
}

std::vector<Output> EtcdController::outputs() const { return {{kEtcdMemberType}, {kServiceType, OutputKind::kShared}}; }

std::string EtcdController::data_dir() const { return options_.state_dir + "/etcd/data"; }
std::string EtcdController::pki_dir() const { return options_.state_dir + "/etcd/pki"; }

bool EtcdController::has_data() const {
  std::error_code ec;
  return fs::exists(data_dir() + "/member", ec);
}

bool EtcdController::serving() const {
  std::lock_guard lock(mu_);
  return view_ != nullptr;
}

void EtcdController::stop() {
  std::lock_guard lock(mu_);
  left_ = true;
  process_.reset();
}

Status EtcdController::write_pki(const EtcdView& v) const {
  std::error_code ec;
  fs::create_directories(pki_dir(), ec);
  if (ec) return Error(ErrorKind::kInternal, "cannot create " + pki_dir() + ": " + ec.message());
  const std::pair<const char*, std::string> files[] = {
      {"ca.crt", v.certs.ca()},
      {"server.crt", v.certs.etcd().crt()},
      {"server.key", v.certs.etcd().key()},
      {"peer.crt", v.certs.etcd_peer().crt()},
      {"peer.key", v.certs.etcd_peer().key()},
  };
  for (const auto& [name, content] : files) {
    if (auto s = write_if_changed(fs::path(pki_dir()) / name, content); !s.ok()) return s;
  }
  return {};
}

std::vector<std::string> EtcdController::args(const EtcdView& v, const std::string& initial_cluster, bool existing) const {
  auto urls = [&](int port) {
    std::string out;
    for (const auto& ip : v.listen_ips) out += (out.empty() ? "" : ",") + std::string("https://") + ip + ":" + std::to_string(port);
    return out;
  };
  const std::string pki = pki_dir();
  std::vector<std::string> a = {options_.etcd_binary,
                                "--name=" + v.name,
                                "--data-dir=" + data_dir(),
                                "--listen-client-urls=" + urls(options_.client_port),
                                "--advertise-client-urls=" + v.client_url,
                                "--listen-peer-urls=" + urls(options_.peer_port),
                                "--initial-advertise-peer-urls=" + v.peer_url,
                                "--initial-cluster=" + initial_cluster,
                                std::string("--initial-cluster-state=") + (existing ? "existing" : "new"),
                                "--cert-file=" + pki + "/server.crt",
                                "--key-file=" + pki + "/server.key",
                                "--trusted-ca-file=" + pki + "/ca.crt",
                                "--client-cert-auth=true",
                                "--peer-cert-file=" + pki + "/peer.crt",
                                "--peer-key-file=" + pki + "/peer.key",
                                "--peer-trusted-ca-file=" + pki + "/ca.crt",
                                "--peer-client-cert-auth=true"};
  for (const auto& [k, value] : v.extra_args) a.push_back("--" + k + "=" + value);
  return a;
}

std::unique_ptr<EtcdClient> EtcdController::voting_client(const EtcdView& v) const {
  std::vector<std::string> candidates = v.peers;
  candidates.push_back(v.self);
  // Probed with a short deadline, so that with members down an RPC still answers within 5 s.
  for (const auto& endpoint : candidates) {
    auto status = clients_(endpoint, v.tls, 700ms)->status();
    if (status.ok() && !status->is_learner && status->leader != 0) return clients_(endpoint, v.tls, kCallDeadline);
  }
  return nullptr;
}

bool EtcdController::publish_member(ControllerContext& ctx, const EtcdView& v) {
  const Pointer local{kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)};
  auto self = kept_.get(v.self, v.tls);
  auto status = self->status();
  if (!status.ok()) kept_.forget(v.self, self);
  if (status.ok() && status->member_id != 0) {
    auto written = ctx.modify<EtcdMemberSpec>(Metadata(kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)),
                                              [&](EtcdMemberSpec& s) { s.set_member_id(member_id_hex(status->member_id)); });
    if (written.ok()) return true;
  }
  (void)ctx.keep(local);
  return status.ok();
}

void EtcdController::publish_service(ControllerContext& ctx) {
  std::lock_guard lock(mu_);
  if (!view_) return;  // not a control plane: no etcd service (the clean-up removes it)
  const bool running = process_ && process_->running();
  (void)ctx.modify<ServiceSpec>(Metadata(kRuntimeNamespace, kServiceType, std::string(kService)), [&](ServiceSpec& s) {
    s.set_running(running);
    s.set_healthy(running && healthy_);
    s.set_unknown(running && !checked_);
  });
}

ReconcileResult EtcdController::reconcile(ControllerContext& ctx) {
  auto result = pass(ctx);
  publish_service(ctx);
  return result;
}

ReconcileResult EtcdController::start(ControllerContext& ctx, const EtcdView& v, const std::string& initial_cluster,
                                      bool existing) {
  std::error_code ec;
  fs::create_directories(options_.state_dir + "/etcd", ec);
  auto process = launcher_(args(v, initial_cluster, existing), "etcd");
  if (!process.ok()) return ReconcileResult::retry(process.error());
  process_ = std::move(*process);
  healthy_ = checked_ = false;
  ctx.log().info("etcd started", {{"member", v.name},
                                  {"cluster_state", existing ? "existing" : "new"},
                                  {"initial_cluster", initial_cluster},
                                  {"pid", std::to_string(process_->pid())}});
  // A learner asks for its promotion at once and often: it is ready as soon as it caught up.
  return ReconcileResult::requeue_after(learner_ ? kPromotePoll : 500ms);
}

void EtcdController::log_waiting_for_learner(ControllerContext& ctx, uint64_t learner) {
  if (learner_wait_logged_) return;  // once per wait
  learner_wait_logged_ = true;
  ctx.log().info("another member is joining as a learner; waiting for its promotion",
                 {{"learner", learner != 0 ? member_id_hex(learner) : std::string("unknown")}});
}

// Whether another node's started learner still answers at its client URL; one that has not for
// kDeadLearner is removed through `via` (the result to return then).
std::optional<ReconcileResult> EtcdController::remove_dead_learner(ControllerContext& ctx, const EtcdView& v,
                                                                    const EtcdMemberInfo& learner, EtcdClient& via,
                                                                    const std::string& peer) {
  bool answers = false;
  for (const auto& url : learner.client_urls) {
    const auto scheme = url.find("://");
    auto client = clients_(scheme == std::string::npos ? url : url.substr(scheme + 3), v.tls, 1s);
    answers = answers || client->status().ok();
  }
  if (answers) {
    dead_learners_.erase(learner.id);
    return std::nullopt;
  }
  auto [since, _] = dead_learners_.try_emplace(learner.id, ctx.now());
  if (ctx.now() - since->second < kDeadLearner) return std::nullopt;
  ctx.log().warn("removing a learner that stopped answering and never caught up",
                 {{"member", member_id_hex(learner.id)},
                  {"name", learner.name},
                  {"peer_urls", learner.peer_urls.empty() ? std::string() : learner.peer_urls.front()},
                  {"unreachable_for", std::to_string(std::chrono::duration_cast<std::chrono::seconds>(ctx.now() - since->second).count()) + "s"},
                  {"via", peer}});
  if (auto s = via.remove(learner.id); !s.ok()) return ReconcileResult::retry(s.error());
  dead_learners_.erase(learner.id);
  return ReconcileResult::requeue_after(kJoinPoll);
}

ReconcileResult EtcdController::join(ControllerContext& ctx, const EtcdView& v) {
  for (const auto& peer : v.peers) {
    // A MemberAdd racing another node's can hang until its deadline, yet apply later: keep the
    // deadline short and let the next pass reuse the unnamed member it finds.
    auto client = joining_.get(peer, v.tls);  // asked every 10 ms while waiting for the learner place
    auto members = client->member_list();
    if (!members.ok()) {
      joining_.forget(peer, client);
      continue;  // down, a learner, or no cluster there yet
    }
    std::optional<uint64_t> reuse;
    std::optional<EtcdMemberInfo> other_learner;
    for (const auto& m : *members) {
      const bool ours = m.name == v.name ||
                        std::find(m.peer_urls.begin(), m.peer_urls.end(), v.peer_url) != m.peer_urls.end();
      if (!ours) {
        if (m.is_learner) other_learner = m;
        continue;
      }
      if (m.name.empty()) {
        reuse = m.id;  // added by an earlier attempt that never started
        continue;
      }
      ctx.log().info("removing a stale member with this node's name", {{"member", member_id_hex(m.id)}, {"via", peer}});
      if (auto s = client->remove(m.id); !s.ok()) return ReconcileResult::retry(s.error());
    }
    // etcd 3.4 takes one learner at a time, and two MemberAdds racing for that place can hang
    // until their deadlines: while another node is a learner, wait for its promotion.
    if (!reuse && other_learner) {
      if (!other_learner->name.empty()) {
        if (auto removed = remove_dead_learner(ctx, v, *other_learner, *client, peer)) return *removed;
      } else {
        auto [seen, _] = unstarted_learners_.try_emplace(other_learner->id, ctx.now());
        if (ctx.now() - seen->second >= kAbandonedLearner) {
          ctx.log().warn("removing a learner that was added but never started",
                         {{"member", member_id_hex(other_learner->id)},
                          {"peer_urls", other_learner->peer_urls.empty() ? std::string() : other_learner->peer_urls.front()},
                          {"via", peer}});
          if (auto s = client->remove(other_learner->id); !s.ok()) return ReconcileResult::retry(s.error());
          unstarted_learners_.erase(other_learner->id);
          return ReconcileResult::requeue_after(kJoinPoll);
        }
      }
      log_waiting_for_learner(ctx, other_learner->id);
      place_free_since_.reset();
      return ReconcileResult::requeue_after(kLearnerPlacePoll);
    }
    if (!reuse) {
      if (const int ahead = joiners_ahead(v, *members); ahead > 0) {
        if (!place_free_since_) place_free_since_ = ctx.now();
        if (ctx.now() - *place_free_since_ < ahead * kJoinStagger) return ReconcileResult::requeue_after(kLearnerPlacePoll);
      }
    }
    place_free_since_.reset();
    uint64_t id = 0;
    if (reuse) {
      id = *reuse;
    } else {
      auto added = client->add_learner({v.peer_url});
      if (!added.ok()) {
        if (contains(added.error().message(), "too many learner")) {
          log_waiting_for_learner(ctx, 0);
          return ReconcileResult::requeue_after(kLearnerPlacePoll);
        }
        // etcd's --strict-reconfig-check (on by default) adds a member only once every voting
        // member has been connected for 5 s: the member just promoted makes the next joiner
        // wait that long. Asked again every kHealthWindowPoll, not after a growing backoff
        // (which added up to 4 s past the window).
        if (contains(added.error().message(), "unhealthy cluster")) {
          if (!health_wait_logged_) {
            health_wait_logged_ = true;
            ctx.log().info("etcd adds a member once every member has been connected for 5 s (strict reconfig check); waiting",
                           {{"via", peer}});
          }
          return ReconcileResult::requeue_after(kHealthWindowPoll);
        }
        if (added.error().kind() == ErrorKind::kDeadlineExceeded) {
          ctx.log().info("MemberAdd got no answer in time (another node's may have been pending); looking again",
                         {{"via", peer}, {"deadline", std::to_string(kMemberChangeDeadline.count()) + "ms"}});
          return ReconcileResult::requeue_after(kLearnerPlacePoll);
        }
        return ReconcileResult::retry(added.error());
      }
      id = *added;
    }
    auto now_members = client->member_list();
    if (!now_members.ok()) return ReconcileResult::retry(now_members.error());
    std::string initial;
    for (const auto& m : *now_members) {
      const std::string name = m.id == id ? v.name : m.name;
      if (name.empty() || m.peer_urls.empty()) continue;
      initial += (initial.empty() ? "" : ",") + name + "=" + m.peer_urls.front();
    }
    learner_ = id;
    learner_wait_logged_ = false;
    health_wait_logged_ = false;
    promoter_ = client;  // a voting member: asked for the promotion
    ctx.log().info("joining the etcd cluster as a learner", {{"member", member_id_hex(id)}, {"via", peer}});
    return start(ctx, v, initial, true);
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_wait_log_ >= 30s) {
    last_wait_log_ = now;
    std::string candidates = v.ip;
    for (const auto& p : v.peers) candidates += ", " + p.substr(0, p.rfind(':'));
    ctx.log().info("no etcd cluster yet: bootstrap exactly one control plane (cosictl bootstrap -n <ip>)",
                   {{"control_planes", candidates}});
  }
  return ReconcileResult::requeue_after(kJoinPoll);
}

ReconcileResult EtcdController::pass(ControllerContext& ctx) {
  auto view = read_etcd_view(ctx, options_.client_port, options_.peer_port);
  std::unique_lock lock(mu_);
  waker_ = ctx.waker();
  if (!view) {
    process_.reset();
    view_.reset();
    return ReconcileResult::done();
  }
  auto v = std::make_shared<const EtcdView>(std::move(*view));
  view_ = v;
  if (left_) return ReconcileResult::done();
  if (auto s = write_pki(*v); !s.ok()) return ReconcileResult::retry(s.error());

  // ServiceStop / ServiceStart / ServiceRestart, through the API.
  const auto request = read_service_request(ctx, kService);
  const bool restart = restarts_.due(request);
  if (request.stopped) {
    if (process_) ctx.log().info("etcd stopped on request", {{"pid", std::to_string(process_->pid())}});
    process_.reset();
    (void)ctx.keep({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)});
    return ReconcileResult::done();
  }
  if (restart && process_) {
    ctx.log().info("etcd restarting on request", {{"pid", std::to_string(process_->pid())}});
    process_.reset();  // started again below, at once
    failures_ = 0;
    next_start_ = {};
  }

  if (process_ && process_->running()) {
    failures_ = 0;
    if (learner_) {
      const uint64_t id = *learner_;
      lock.unlock();
      if (!promoter_) promoter_ = voting_client(*v);
      Status promoted = promoter_ ? promoter_->promote(id) : Status(Error(ErrorKind::kUnavailable, "no voting member answers"));
      lock.lock();
      if (promoted.ok()) {
        learner_.reset();
        promoter_.reset();
        ctx.log().info("promoted to a voting member", {{"member", member_id_hex(id)}});
      } else if (!learner_not_ready(promoted.error())) {
        promoter_.reset();  // that member may be gone: the next try looks for a voting one again
        ctx.log().info("promotion not possible yet", {{"error", promoted.error().message()}});
      }
    }
    const bool waiting = learner_.has_value();
    lock.unlock();
    const bool answered = publish_member(ctx, *v);
    lock.lock();
    healthy_ = answered;
    checked_ = true;
    lock.unlock();
    return ReconcileResult::requeue_after(waiting ? kPromotePoll : 2s);
  }
  if (process_) {
    ++failures_;
    process_.reset();
    const auto delay = std::min<std::chrono::milliseconds>(5s, 200ms * (1 << std::min(failures_, 5)));
    next_start_ = std::chrono::steady_clock::now() + delay;
    ctx.log().warn("etcd exited; restarting", {{"failures", std::to_string(failures_)}, {"log", "cosictl logs etcd"}});
  }
  if (const auto now = std::chrono::steady_clock::now(); now < next_start_) {
    (void)ctx.keep({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)});
    return ReconcileResult::requeue_after(std::chrono::duration_cast<std::chrono::milliseconds>(next_start_ - now));
  }
  (void)ctx.keep({kEtcdNamespace, kEtcdMemberType, std::string(kEtcdMemberId)});
  if (has_data()) return start(ctx, *v, v->name + "=" + v->peer_url, true);
  if (bootstrap_requested_) return start(ctx, *v, v->name + "=" + v->peer_url, false);
  return join(ctx, *v);
}

std::shared_ptr<const EtcdView> EtcdController::current_view() const {
  std::lock_guard lock(mu_);
  return view_;
}

Status EtcdController::check_bootstrap(std::shared_ptr<const EtcdView>* view) {
  std::shared_ptr<const EtcdView> v;
  {
    std::lock_guard lock(mu_);
    v = view_;
    if (!v) return Error(ErrorKind::kUnimplemented, "bootstrap is only available on control plane nodes");
    if (has_data() || bootstrap_requested_ || learner_ || (process_ && process_->running())) {
      return Error(ErrorKind::kAlreadyExists, "etcd data directory is not empty");
    }
  }
  for (const auto& peer : v->peers) {
    auto members = clients_(peer, v->tls, 1s)->member_list();
    if (members.ok()) {
      return Error(ErrorKind::kFailedPrecondition,
                   "etcd already runs on " + peer.substr(0, peer.rfind(':')) + " (a cluster of " + std::to_string(members->size()) +
                       " members): this node joins it by itself; a second bootstrap would make a second cluster");
    }
  }
  *view = v;
  return {};
}

Status EtcdController::bootstrap() {
  std::shared_ptr<const EtcdView> v;
  if (auto s = check_bootstrap(&v); !s.ok()) return s;
  ControllerContext::Waker wake;
  {
    std::lock_guard lock(mu_);
    if (has_data() || bootstrap_requested_) return Error(ErrorKind::kAlreadyExists, "etcd data directory is not empty");
    bootstrap_requested_ = true;
    left_ = false;
    wake = waker_;
  }
  if (wake) wake();
  return {};
}

Status EtcdController::bootstrap_from_snapshot() {
  std::shared_ptr<const EtcdView> v;
  if (auto s = check_bootstrap(&v); !s.ok()) return s;
  std::error_code ec;
  if (!fs::exists(recover_path(), ec)) {
    return Error(ErrorKind::kFailedPrecondition, "no snapshot uploaded: send one with EtcdRecover (cosictl bootstrap --recover-from)");
  }
  if (!runner_) return Error(ErrorKind::kUnimplemented, "this node cannot restore snapshots");
  auto restored = runner_({options_.etcdctl_binary, "snapshot", "restore", recover_path(), "--name=" + v->name,
                           "--initial-cluster=" + v->name + "=" + v->peer_url, "--initial-advertise-peer-urls=" + v->peer_url,
                           "--data-dir=" + data_dir()},
                          "etcd", 60s);
  if (!restored.ok()) {
    fs::remove_all(data_dir(), ec);
    return Error(restored.error().kind(), "etcdctl snapshot restore: " + restored.error().message());
  }
  ControllerContext::Waker wake;
  {
    std::lock_guard lock(mu_);
    bootstrap_requested_ = true;
    left_ = false;
    wake = waker_;
  }
  fs::remove(recover_path(), ec);
  if (wake) wake();
  return {};
}

Status EtcdController::snapshot(const std::string& path) {
  auto v = current_view();
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.good()) return Error(ErrorKind::kInternal, "cannot write " + path);
  auto s = clients_(v->self, v->tls, kCallDeadline)->snapshot([&](std::string_view chunk) -> Status {
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    if (!out.good()) return Error(ErrorKind::kInternal, "cannot write " + path);
    return {};
  });
  return s;
}

Result<std::vector<EtcdAlarm>> EtcdController::alarms() {
  auto v = current_view();
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  auto voting = voting_client(*v);
  if (!voting) return Error(ErrorKind::kUnavailable, "no voting etcd member answers");
  return voting->alarms();
}

Result<std::vector<EtcdAlarm>> EtcdController::disarm_alarms() {
  auto v = current_view();
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  auto voting = voting_client(*v);
  if (!voting) return Error(ErrorKind::kUnavailable, "no voting etcd member answers");
  auto active = voting->alarms();
  if (!active.ok()) return active.error();
  for (const auto& a : *active) {
    if (auto s = voting->disarm(a); !s.ok()) return s.error();
  }
  return active;
}

Status EtcdController::defragment() {
  auto v = current_view();
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  return clients_(v->self, v->tls, kCallDeadline)->defragment();
}

Status EtcdController::leave() {
  std::shared_ptr<const EtcdView> v;
  {
    std::lock_guard lock(mu_);
    v = view_;
  }
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  {
    std::lock_guard lock(mu_);
    if (!has_data() && !(process_ && process_->running())) {  // never a member: nothing to leave
      left_ = true;
      return {};
    }
  }
  auto voting = voting_client(*v);
  if (!voting) return Error(ErrorKind::kUnavailable, "no voting etcd member answers: cannot leave the cluster safely");
  auto members = voting->member_list();
  if (!members.ok()) return members.error();
  for (const auto& m : *members) {
    if (m.name == v->name || std::find(m.peer_urls.begin(), m.peer_urls.end(), v->peer_url) != m.peer_urls.end()) {
      if (auto s = voting->remove(m.id); !s.ok()) return s;
    }
  }
  std::lock_guard lock(mu_);
  left_ = true;
  bootstrap_requested_ = false;
  learner_.reset();
  process_.reset();
  std::error_code ec;
  fs::remove_all(data_dir(), ec);
  return {};
}

Status EtcdController::remove_member(uint64_t id) {
  std::shared_ptr<const EtcdView> v;
  {
    std::lock_guard lock(mu_);
    v = view_;
  }
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  auto voting = voting_client(*v);
  if (!voting) return Error(ErrorKind::kUnavailable, "no voting etcd member answers");
  return voting->remove(id);
}

Result<uint64_t> EtcdController::forfeit_leadership() {
  std::shared_ptr<const EtcdView> v;
  {
    std::lock_guard lock(mu_);
    v = view_;
  }
  if (!v) return Error(ErrorKind::kUnimplemented, "etcd runs only on control plane nodes");
  auto local = clients_(v->self, v->tls, kCallDeadline);
  auto status = local->status();
  if (!status.ok()) return status.error();
  if (status->leader != status->member_id) return uint64_t{0};
  auto members = local->member_list();
  if (!members.ok()) return members.error();
  for (const auto& m : *members) {
    if (m.id == status->member_id || m.is_learner) continue;
    if (auto s = local->move_leader(m.id); s.ok()) return m.id;
  }
  return Error(ErrorKind::kFailedPrecondition, "no other voting member can take the leadership");
}

}  // namespace cosi::controllers
