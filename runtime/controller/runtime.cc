#include "runtime/controller/runtime.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "runtime/base/thread_annotations.h"
#include "runtime/controller/access.h"
#include "runtime/controller/context.h"
#include "runtime/controller/runtime_metrics.h"
#include "runtime/controller/work_queue.h"
#include "runtime/state/state_ops.h"

namespace cosi {
namespace {

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// A per-key worker's thread: while it reconciles, a drain its writes start is deferred to this
// thread (Executor::defer) rather than handed to another (a wake-up per link of a chain), and
// the worker returns after its current few keys so that the drain runs.
thread_local bool in_keyed_work = false;
thread_local int deferred_drains = 0;

bool destroy_ready(const Event& e) {
  if (e.type == EventType::kDestroyed) return false;
  const Metadata& md = e.resource->metadata();
  return md.phase() == Phase::kTearingDown && md.finalizers().empty();
}

// The outcome of one reconcile call: its result, or a crash.
struct Outcome {
  ReconcileResult result;
  bool crashed = false;
};

}  // namespace

struct Runtime::Impl : std::enable_shared_from_this<Runtime::Impl> {
  // One registered controller and its scheduling state (all guarded by Impl::mu).
  struct Core {
    Atom name;
    std::unique_ptr<Controller> whole;
    std::unique_ptr<KeyedController> keyed;
    std::shared_ptr<const AccessRules> rules;
    std::unique_ptr<ControllerMetrics> metrics;
    std::vector<Input> primary;  // keyed
    std::vector<Input> mapped;   // keyed
    Logger log;

    // Whole-set: at most one pass runs; wake-ups during it set `dirty`.
    bool scheduled = false;
    bool running = false;
    bool dirty = false;
    int failures = 0;
    std::optional<TimerId> timer;
    std::set<Kind> output_kinds;  // where its outputs have been written
    bool cleanup_pending = false;

    // Per-key.
    WorkQueue queue;
    int concurrency = 1;
    int active = 0;
    std::map<Pointer, int> key_failures;
    std::map<Pointer, TimerId> key_timers;
  };

  enum class Role { kWhole, kPrimary, kMapped };
  struct Route {
    Core* core;
    Input input;
    Role role;
  };

  struct WatchSlot {
    Kind kind;
    WatchPtr watch;
    std::atomic<bool> scheduled{false};
  };

  Impl(State& s, Executor& e, Clock& c, RuntimeOptions o)
      : state(s), executor(e), clock(c), options(std::move(o)), backoff(options.backoff), m(registry) {}

  State& state;
  Executor& executor;
  Clock& clock;
  const RuntimeOptions options;
  const Backoff backoff;
  metrics::Registry registry;
  RuntimeMetrics m;

  mutable std::mutex mu;
  std::condition_variable settled;  // in_flight dropped
  DependencyGraph graph COSI_GUARDED_BY(mu);
  std::vector<std::unique_ptr<Core>> cores COSI_GUARDED_BY(mu);
  std::map<Kind, std::vector<Route>> routes COSI_GUARDED_BY(mu);
  std::map<Kind, std::shared_ptr<WatchSlot>> watches COSI_GUARDED_BY(mu);
  bool started COSI_GUARDED_BY(mu) = false;
  bool stopping COSI_GUARDED_BY(mu) = false;
  int in_flight COSI_GUARDED_BY(mu) = 0;

  // --- registration -------------------------------------------------------------------

  Status add(std::unique_ptr<Core> core, const std::vector<Input>& inputs,
             const std::vector<Output>& outputs) {
    std::lock_guard lock(mu);
    if (started) {
      return Error(ErrorKind::kInvalidArgument,
                   "controller \"" + core->name.str() + "\": controllers are added before start");
    }
    if (auto s = graph.add(core->name.str(), inputs, outputs); !s.ok()) return s;
    core->log = options.logger.with_fields({{"controller", core->name.str()}});
    core->metrics = std::make_unique<ControllerMetrics>(m, core->name.str());
    core->rules = std::make_shared<const AccessRules>(core->name, inputs, outputs);
    cores.push_back(std::move(core));
    return {};
  }

  void rebuild_routes() {
    routes.clear();
    for (const auto& core : cores) {
      if (core->whole) {
        for (const auto& i : core->rules->inputs()) routes[i.resource_kind()].push_back({core.get(), i, Role::kWhole});
      } else {
        for (const auto& i : core->primary) routes[i.resource_kind()].push_back({core.get(), i, Role::kPrimary});
        for (const auto& i : core->mapped) routes[i.resource_kind()].push_back({core.get(), i, Role::kMapped});
      }
    }
  }

  Status ensure_watch(const Kind& kind) {
    if (watches.contains(kind)) return {};
    auto watch = state.watch_kind(kind);
    if (!watch.ok()) return watch.error();
    auto slot = std::make_shared<WatchSlot>();
    slot->kind = kind;
    slot->watch = std::move(*watch);
    watches.emplace(kind, slot);
    std::weak_ptr<Impl> weak_self = weak_from_this();
    std::weak_ptr<WatchSlot> weak_slot = slot;
    slot->watch->set_notify([weak_self, weak_slot] {
      auto self = weak_self.lock();
      auto slot = weak_slot.lock();
      if (self && slot) self->schedule_drain(std::move(slot));
    });
    return {};
  }

  // --- events -------------------------------------------------------------------------

  void schedule_drain(std::shared_ptr<WatchSlot> slot) {
    if (slot->scheduled.exchange(true)) return;
    Task task = [self = shared_from_this(), slot = std::move(slot)] { self->drain(*slot); };
    if (in_keyed_work) {
      ++deferred_drains;
      executor.defer(std::move(task));
    } else {
      executor.post(std::move(task));
    }
  }

  // The slot's watch is only cancelled, never destroyed, while a drain may hold the slot.
  // The work it starts continues on this thread (Executor::defer): a drain is short, and the
  // hand-off to another thread would cost each link of a controller chain a wake-up.
  void drain(WatchSlot& slot) {
    slot.scheduled.store(false);
    std::vector<Event> events;
    slot.watch->poll(events);
    std::lock_guard lock(mu);
    if (stopping) return;
    for (const Event& e : events) dispatch(slot.kind, e);
  }

  // How a task that another starts is handed to the executor.
  enum class Start { kPost, kContinue };
  void submit(Start how, Task task) {
    if (how == Start::kContinue) {
      executor.defer(std::move(task));
    } else {
      executor.post(std::move(task));
    }
  }

  void dispatch(const Kind& kind, const Event& e) {
    if (e.type != EventType::kCreated && e.type != EventType::kUpdated &&
        e.type != EventType::kDestroyed) {
      return;
    }
    const Pointer pointer = e.resource->metadata().pointer();
    if (auto it = routes.find(kind); it != routes.end()) {
      for (const Route& route : it->second) {
        if (!route.input.covers(pointer)) continue;
        if (route.input.kind == InputKind::kDestroyReady && !destroy_ready(e)) continue;
        switch (route.role) {
          case Role::kWhole: wake(*route.core, Start::kContinue); break;
          case Role::kPrimary: enqueue(*route.core, pointer, Start::kContinue); break;
          case Role::kMapped: map_later(*route.core, pointer); break;
        }
      }
    }
    // An output a controller is tearing down became free of finalizers: let it finish. A pass
    // that is running may be the one tearing it down and set `cleanup_pending` only when it
    // ends, after this event: wake it too (it runs again), or the release would be lost.
    if (destroy_ready(e)) {
      for (const auto& core : cores) {
        if (core->whole && (core->cleanup_pending || core->running) &&
            core->name == e.resource->metadata().owner()) {
          wake(*core);
        }
      }
    }
  }

  // --- whole-set controllers ----------------------------------------------------------

  void wake(Core& core, Start how = Start::kPost) {
    if (stopping) return;
    core.metrics->adds.inc();
    if (core.running) {
      core.dirty = true;
      return;
    }
    if (core.scheduled) return;
    core.scheduled = true;
    core.metrics->depth.set(1);
    submit(how, [self = shared_from_this(), c = &core] { self->run_pass(*c); });
  }

  void wake_after(Core& core, Duration delay) {
    if (core.timer) clock.cancel(*core.timer);
    std::weak_ptr<Impl> weak = weak_from_this();
    core.timer = clock.schedule(clock.now() + delay, [weak, c = &core] {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mu);
      c->timer.reset();
      self->wake(*c);
    });
  }

  Outcome invoke(Core& core, const std::function<ReconcileResult()>& fn) {
    try {
      return {fn(), false};
    } catch (const std::exception& e) {
      core.log.error("reconcile crashed", {{"error", e.what()}});
      return {ReconcileResult::retry(Error(ErrorKind::kInternal, e.what())), true};
    } catch (...) {
      core.log.error("reconcile crashed", {{"error", "unknown exception"}});
      return {ReconcileResult::retry(Error(ErrorKind::kInternal, "unknown exception")), true};
    }
  }

  void run_pass(Core& core) {
    std::shared_ptr<const AccessRules> rules;
    {
      std::lock_guard lock(mu);
      core.scheduled = false;
      if (stopping) return;
      core.running = true;
      core.dirty = false;
      ++in_flight;
      rules = core.rules;
      core.metrics->depth.set(0);
      core.metrics->active.set(1);
    }
    const SteadyTime start = clock.now();
    std::weak_ptr<Impl> weak = weak_from_this();
    ControllerContext ctx(
        state, rules, clock, core.log,
        [this, c = &core](std::vector<Input> inputs) { return update_inputs(*c, std::move(inputs)); },
        /*track_writes=*/true, [weak, c = &core] {
          auto self = weak.lock();
          if (!self) return;
          std::lock_guard lock(self->mu);
          self->wake(*c);
        });
    Outcome outcome = invoke(core, [&] { return core.whole->reconcile(ctx); });
    if (outcome.result.ok()) {
      if (auto s = clean_up(core, ctx.touched()); !s.ok()) outcome.result = ReconcileResult::retry(s.error());
    }
    Tally tally;
    record(core, outcome, clock.now() - start, tally);
    tally.flush(*core.metrics);

    std::lock_guard lock(mu);
    core.running = false;
    core.metrics->active.set(0);
    follow_up(core, outcome);
    if (core.dirty) {
      core.dirty = false;
      wake(core);
    }
    --in_flight;
    settled.notify_all();
  }

  void follow_up(Core& core, const Outcome& outcome) {
    switch (outcome.result.kind()) {
      case ReconcileResult::Kind::kDone:
        core.failures = 0;
        break;
      case ReconcileResult::Kind::kRequeueAfter:
        core.failures = 0;
        if (!stopping) wake_after(core, outcome.result.after());
        break;
      case ReconcileResult::Kind::kRetry:
        ++core.failures;
        core.metrics->retries.inc();
        if (!stopping) wake_after(core, backoff.delay(core.failures));
        break;
      case ReconcileResult::Kind::kTerminal:
        core.failures = 0;
        break;
    }
  }

  // Destroys (tearing down first) the outputs the controller owns and did not write.
  Status clean_up(Core& core, const std::set<Pointer>& touched) {
    std::set<Kind> kinds;
    {
      std::lock_guard lock(mu);
      for (const auto& p : touched) {
        if (core.output_kinds.insert(p.kind()).second) {
          if (auto s = ensure_watch(p.kind()); !s.ok()) return s;
        }
      }
      kinds = core.output_kinds;
    }
    bool pending = false;
    for (const Kind& kind : kinds) {
      auto list = state.list(kind);
      if (!list.ok()) return list.error();
      for (const auto& r : *list) {
        const Metadata& md = r->metadata();
        if (md.owner() != core.name || touched.contains(md.pointer())) continue;
        bool ready = md.finalizers().empty();
        if (md.phase() == Phase::kRunning) {
          auto t = teardown(state, md.pointer(), core.name);
          if (!t.ok()) {
            if (t.error().is(ErrorKind::kNotFound)) continue;
            return t.error();
          }
          ready = *t;
        }
        if (!ready) {
          pending = true;
          continue;
        }
        auto s = state.destroy(md.pointer(), {core.name});
        if (!s.ok() && !s.error().is(ErrorKind::kNotFound)) {
          if (s.error().is(ErrorKind::kPendingFinalizers)) {
            pending = true;
            continue;
          }
          return s;
        }
      }
    }
    std::lock_guard lock(mu);
    core.cleanup_pending = pending;
    return {};
  }

  // Metrics of reconciles, counted locally and added to the shared series once: several
  // workers of one controller would otherwise fight over the same cache lines per key.
  struct Tally {
    double success = 0, requeue_after = 0, error = 0, panics = 0;
    std::vector<double> times;

    void flush(ControllerMetrics& cm) {
      if (success > 0) cm.success.inc(success);
      if (requeue_after > 0) cm.requeue_after.inc(requeue_after);
      if (error > 0) {
        cm.error.inc(error);
        cm.errors.inc(error);
      }
      if (panics > 0) cm.panics.inc(panics);
      cm.time.observe_many(times.data(), times.size());
    }
  };

  // Counts one reconcile, tells the on_reconcile hook and logs a failure.
  void record(Core& core, const Outcome& outcome, Duration took, Tally& tally, const Pointer* key = nullptr) {
    if (options.on_reconcile) options.on_reconcile(core.name.str(), outcome.result.kind());
    tally.times.push_back(seconds(took));
    switch (outcome.result.kind()) {
      case ReconcileResult::Kind::kDone:
        ++tally.success;
        break;
      case ReconcileResult::Kind::kRequeueAfter:
        ++tally.requeue_after;
        break;
      case ReconcileResult::Kind::kRetry:
      case ReconcileResult::Kind::kTerminal:
        ++tally.error;
        if (outcome.crashed) {
          ++tally.panics;
        } else {
          LogFields fields{{"error", outcome.result.error().to_string()}};
          if (key != nullptr) fields.emplace_back("key", key->to_string());
          core.log.warn(outcome.result.kind() == ReconcileResult::Kind::kTerminal
                            ? "reconcile failed; not retrying"
                            : "reconcile failed; retrying",
                        std::move(fields));
        }
        break;
    }
  }

  Status update_inputs(Core& core, std::vector<Input> inputs) {
    std::lock_guard lock(mu);
    if (!core.whole) {
      return Error(ErrorKind::kUnimplemented, "controller \"" + core.name.str() +
                                                  "\": a per-key controller's inputs are fixed");
    }
    if (inputs == core.rules->inputs()) return {};
    if (auto s = graph.replace_inputs(core.name.str(), inputs); !s.ok()) return s;
    core.rules = std::make_shared<const AccessRules>(core.name, inputs, core.rules->outputs());
    rebuild_routes();
    for (const auto& i : inputs) {
      if (auto s = ensure_watch(i.resource_kind()); !s.ok()) return s;
    }
    wake(core);  // runs again once this pass ends, now with the new inputs
    return {};
  }

  // --- per-key controllers ------------------------------------------------------------

  void enqueue(Core& core, const Pointer& key, Start how = Start::kPost) {
    if (stopping) return;
    if (core.queue.add(key, clock.now())) core.metrics->adds.inc();
    core.metrics->depth.set(static_cast<double>(core.queue.depth()));
    start_workers(core, how);
  }

  // The first new worker may continue this thread's task; any more are posted, to run beside.
  void start_workers(Core& core, Start how = Start::kPost) {
    while (!stopping && core.active < core.concurrency && core.queue.ready()) {
      ++core.active;
      submit(how, [self = shared_from_this(), c = &core] { self->work(*c); });
      how = Start::kPost;
    }
  }

  void map_later(Core& core, const Pointer& changed) {
    executor.post([self = shared_from_this(), c = &core, changed] {
      std::shared_ptr<const AccessRules> rules;
      {
        std::lock_guard lock(self->mu);
        if (self->stopping) return;
        rules = c->rules;
      }
      ControllerReader reader(self->state, rules);
      std::vector<Pointer> keys;
      try {
        keys = c->keyed->map(reader, changed);
      } catch (const std::exception& e) {
        c->log.error("map crashed", {{"error", e.what()}, {"input", changed.to_string()}});
        c->metrics->panics.inc();
        return;
      } catch (...) {
        c->log.error("map crashed", {{"error", "unknown exception"}, {"input", changed.to_string()}});
        c->metrics->panics.inc();
        return;
      }
      std::lock_guard lock(self->mu);
      for (const auto& key : keys) self->enqueue(*c, key);
    });
  }

  // A worker takes up to kTake keys per visit to the lock, reconciles them, and reports them
  // done together; it goes on while keys are ready, re-posting itself after kBatch keys so
  // other controllers on the pool get their turn.
  void work(Core& core) {
    constexpr std::size_t kTake = 16;
    constexpr int kBatch = 256;
    struct Item {
      Pointer key;
      Outcome outcome;
      SteadyTime end;
    };
    std::vector<Item> items;
    // Queue and work durations, observed together outside the lock.
    std::vector<double> waits, works;
    ControllerMetrics& cm = *core.metrics;
    std::unique_lock lock(mu);
    deferred_drains = 0;  // any deferred before this task have run: Asio runs them in between
    for (int handled = 0;;) {
      if (deferred_drains > 0) handled = kBatch;  // let them run now (see in_keyed_work)
      items.clear();
      const SteadyTime taken = clock.now();
      while (!stopping && handled < kBatch && items.size() < kTake) {
        Duration waited{};
        auto key = core.queue.take(taken, &waited);
        if (!key) break;
        waits.push_back(seconds(waited));
        items.push_back({std::move(*key), {ReconcileResult::done(), false}, {}});
        ++handled;
      }
      if (items.empty()) {
        cm.work_duration.observe_many(works.data(), works.size());
        if (!stopping && core.queue.ready()) {
          executor.post([self = shared_from_this(), c = &core] { self->work(*c); });
        } else {
          --core.active;
        }
        settled.notify_all();
        return;
      }
      ++in_flight;
      cm.depth.set(static_cast<double>(core.queue.depth()));
      cm.active.add(1);
      std::shared_ptr<const AccessRules> rules = core.rules;
      lock.unlock();

      cm.queue_duration.observe_many(waits.data(), waits.size());
      cm.work_duration.observe_many(works.data(), works.size());
      waits.clear();
      works.clear();
      Tally tally;
      SteadyTime start = clock.now();
      // One context serves the batch: it only forwards, and copying its rules and logger per
      // key would make the workers of one controller fight over their reference counts.
      ControllerContext ctx(state, std::move(rules), clock, core.log, {}, /*track_writes=*/false);
      in_keyed_work = true;
      for (Item& item : items) {
        item.outcome = invoke(core, [&] { return core.keyed->reconcile(ctx, item.key); });
        item.end = clock.now();
        record(core, item.outcome, item.end - start, tally, &item.key);
        start = item.end;
      }
      in_keyed_work = false;
      tally.flush(cm);

      lock.lock();
      for (Item& item : items) {
        Duration worked{};
        core.queue.done(item.key, item.end, &worked);
        works.push_back(seconds(worked));
        follow_up_key(core, item.key, item.outcome);
      }
      cm.active.add(-1);
      --in_flight;
      start_workers(core);
    }
  }

  void follow_up_key(Core& core, const Pointer& key, const Outcome& outcome) {
    switch (outcome.result.kind()) {
      case ReconcileResult::Kind::kDone:
      case ReconcileResult::Kind::kTerminal:
        core.key_failures.erase(key);
        break;
      case ReconcileResult::Kind::kRequeueAfter:
        core.key_failures.erase(key);
        enqueue_after(core, key, outcome.result.after());
        break;
      case ReconcileResult::Kind::kRetry: {
        int failures = ++core.key_failures[key];
        core.metrics->retries.inc();
        enqueue_after(core, key, backoff.delay(failures));
        break;
      }
    }
  }

  void enqueue_after(Core& core, const Pointer& key, Duration delay) {
    if (stopping) return;
    if (auto it = core.key_timers.find(key); it != core.key_timers.end()) clock.cancel(it->second);
    std::weak_ptr<Impl> weak = weak_from_this();
    core.key_timers[key] = clock.schedule(clock.now() + delay, [weak, c = &core, key] {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mu);
      c->key_timers.erase(key);
      self->enqueue(*c, key);
    });
  }

  // --- lifecycle ----------------------------------------------------------------------

  Status start() {
    std::lock_guard lock(mu);
    if (started) return Error(ErrorKind::kInvalidArgument, "runtime already started");
    started = true;
    rebuild_routes();
    for (const auto& [kind, list] : routes) {
      if (auto s = ensure_watch(kind); !s.ok()) return s;
    }
    for (const auto& core : cores) {
      if (core->whole) {
        wake(*core);
        continue;
      }
      std::vector<Pointer> keys;
      for (const auto& input : core->primary) {
        auto list = state.list(input.resource_kind());
        if (!list.ok()) return list.error();
        keys.reserve(keys.size() + list->size());
        for (const auto& r : *list) {
          Pointer key = r->metadata().pointer();
          if (input.covers(key)) keys.push_back(std::move(key));
        }
      }
      core->metrics->adds.inc(static_cast<double>(core->queue.add_all(std::move(keys), clock.now())));
      core->metrics->depth.set(static_cast<double>(core->queue.depth()));
      start_workers(*core);
    }
    return {};
  }

  Status stop(Duration grace) {
    std::map<Kind, std::shared_ptr<WatchSlot>> closing;
    {
      std::lock_guard lock(mu);
      if (!stopping) {
        stopping = true;
        for (const auto& core : cores) {
          if (core->timer) clock.cancel(*core->timer);
          for (const auto& [key, timer] : core->key_timers) clock.cancel(timer);
          core->key_timers.clear();
        }
        closing.swap(watches);
      }
    }
    for (auto& [kind, slot] : closing) slot->watch->cancel();
    std::unique_lock lock(mu);
    if (!settled.wait_for(lock, grace, [&] { return in_flight == 0; })) {
      return Error(ErrorKind::kDeadlineExceeded,
                   std::to_string(in_flight) + " reconciles still running after the grace period");
    }
    return {};
  }
};

Runtime::Runtime(State& state, Executor& executor, Clock& clock, RuntimeOptions options)
    : impl_(std::make_shared<Impl>(state, executor, clock, std::move(options))) {}

Runtime::~Runtime() { (void)impl_->stop(std::chrono::seconds(30)); }

Status Runtime::add(std::unique_ptr<Controller> controller) {
  auto core = std::make_unique<Impl::Core>();
  core->name = controller->name();
  auto inputs = controller->inputs();
  auto outputs = controller->outputs();
  core->whole = std::move(controller);
  return impl_->add(std::move(core), inputs, outputs);
}

Status Runtime::add(std::unique_ptr<KeyedController> controller) {
  auto core = std::make_unique<Impl::Core>();
  core->name = controller->name();
  core->primary = controller->primary_inputs();
  core->mapped = controller->mapped_inputs();
  core->concurrency = std::max(1, controller->concurrency());
  std::vector<Input> inputs = core->primary;
  inputs.insert(inputs.end(), core->mapped.begin(), core->mapped.end());
  auto outputs = controller->outputs();
  core->keyed = std::move(controller);
  return impl_->add(std::move(core), inputs, outputs);
}

Status Runtime::start() { return impl_->start(); }
Status Runtime::stop(Duration grace) { return impl_->stop(grace); }
metrics::Registry& Runtime::metrics() { return impl_->registry; }

std::vector<DependencyEdge> Runtime::dependencies() const {
  std::lock_guard lock(impl_->mu);
  return impl_->graph.edges();
}

std::string Runtime::dependencies_dot() const {
  std::lock_guard lock(impl_->mu);
  return impl_->graph.dot();
}

}  // namespace cosi
