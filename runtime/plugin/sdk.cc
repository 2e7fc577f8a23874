#include "runtime/plugin/sdk.h"

#include <chrono>
#include <deque>
#include <map>
#include <mutex>

#include "runtime/controller/access.h"
#include "runtime/controller/context.h"
#include "runtime/plugin/abi_support.h"
#include "runtime/proto/resource_codec.h"
#include "runtime/state/selection.h"

namespace cosi::plugin {
namespace {

Result<ResourcePtr> decode(const std::string& bytes, const ResourceTypes& types) {
  cosi::resource::Resource msg;
  if (!msg.ParseFromString(bytes)) {
    return Error(ErrorKind::kInternal, "host sent bytes that are not a cosi.resource.Resource");
  }
  auto r = decode_resource(msg, types);
  if (!r.ok()) return r.error();
  return ResourcePtr(std::move(*r));
}

Result<std::string> encode(const Resource& r) {
  cosi::resource::Resource msg;
  if (auto s = encode_resource(r, &msg); !s.ok()) return s.error();
  return msg.SerializeAsString();
}

// Time inside a plugin: the steady clock. Timers are the host runtime's business.
class SteadyClock final : public Clock {
 public:
  SteadyTime now() const override { return std::chrono::steady_clock::now(); }
  TimerId schedule(SteadyTime, Task) override { return 0; }
  void cancel(TimerId) override {}
};

const SteadyClock& steady_clock() {
  static const SteadyClock* c = new SteadyClock();
  return *c;
}

Logger host_logger(const cosi_host& host) {
  return Logger([&host](const LogRecord& r) {
    std::string line = r.message;
    for (const auto& [k, v] : r.fields) line += " " + k + "=" + v;
    host.log(host.context, static_cast<int32_t>(r.level), view(line));
  });
}

// Finalizers and teardown go to the host as they are: it edits resources the plugin does not
// own, which a plain update through HostState could not.
class PluginContext final : public ControllerContext {
 public:
  PluginContext(HostState& state, std::shared_ptr<const AccessRules> rules)
      : ControllerContext(state, std::move(rules), steady_clock(), host_logger(state.host())),
        host_(state.host()) {}

  Result<bool> teardown(const Pointer& p) override {
    StringSink error;
    int32_t ready = 0;
    if (int32_t code = host_.teardown(host_.context, c_pointer(p), &ready, error.sink()); code != 0) {
      return error_from(code, error.value);
    }
    return ready != 0;
  }
  Status add_finalizer(const Pointer& p) override {
    StringSink error;
    int32_t code = host_.add_finalizer(host_.context, c_pointer(p), error.sink());
    if (code != 0) return error_from(code, error.value);
    return {};
  }
  Status remove_finalizer(const Pointer& p) override {
    StringSink error;
    int32_t code = host_.remove_finalizer(host_.context, c_pointer(p), error.sink());
    if (code != 0) return error_from(code, error.value);
    return {};
  }

 private:
  const cosi_host& host_;
};

// One exported controller: the object and what the ABI needs to reach it.
struct Exported {
  std::unique_ptr<Controller> whole;
  std::unique_ptr<KeyedController> keyed;
  std::shared_ptr<const AccessRules> rules;
  const ResourceTypes* types;
  std::string name;
  std::vector<std::string> strings;  // backing for the C strings below (a deque would not move)
  std::vector<cosi_input> inputs, mapped;
  std::vector<cosi_output> outputs;
};

void fill(cosi_outcome* out, const ReconcileResult& r) {
  switch (r.kind()) {
    case ReconcileResult::Kind::kDone: out->kind = COSI_DONE; break;
    case ReconcileResult::Kind::kRequeueAfter:
      out->kind = COSI_REQUEUE_AFTER;
      out->requeue_after_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(r.after()).count();
      break;
    case ReconcileResult::Kind::kRetry:
    case ReconcileResult::Kind::kTerminal:
      out->kind = r.kind() == ReconcileResult::Kind::kRetry ? COSI_RETRY : COSI_TERMINAL;
      out->error_kind = 1 + static_cast<int32_t>(r.error().kind());
      write(out->message, r.error().message());
      break;
  }
}

template <class Fn>
void guarded(cosi_outcome* out, Fn fn) {
  try {
    fill(out, fn());
  } catch (const std::exception& e) {
    out->kind = COSI_CRASHED;
    write(out->message, e.what());
  } catch (...) {
    out->kind = COSI_CRASHED;
    write(out->message, "unknown exception");
  }
}

// Tells the host every output the pass wrote or found already right: a write that changed
// nothing never reached it, and its clean-up must not take that output away.
ReconcileResult keep_touched(const cosi_host& host, const PluginContext& ctx, ReconcileResult result) {
  if (!result.ok()) return result;
  for (const auto& p : ctx.touched()) {
    StringSink error;
    if (int32_t code = host.keep(host.context, c_pointer(p), error.sink()); code != 0) {
      return ReconcileResult::retry(error_from(code, error.value));
    }
  }
  return result;
}

void reconcile_whole(void* instance, const cosi_host* host, cosi_outcome* out) {
  auto* e = static_cast<Exported*>(instance);
  guarded(out, [&] {
    HostState state(*host, *e->types);
    PluginContext ctx(state, e->rules);
    return keep_touched(*host, ctx, e->whole->reconcile(ctx));
  });
}

void reconcile_key(void* instance, const cosi_host* host, cosi_pointer key, cosi_outcome* out) {
  auto* e = static_cast<Exported*>(instance);
  guarded(out, [&] {
    HostState state(*host, *e->types);
    PluginContext ctx(state, e->rules);
    return e->keyed->reconcile(ctx, from_c(key));
  });
}

void map_keys(void* instance, const cosi_host* host, cosi_pointer changed, cosi_sink keys) {
  auto* e = static_cast<Exported*>(instance);
  try {
    HostState state(*host, *e->types);
    ControllerReader reader(state, e->rules);
    write(keys, encode_keys(e->keyed->map(reader, from_c(changed))));
  } catch (...) {
    // A map that throws yields no keys; the host logs nothing more than a missed change.
  }
}

void describe(Exported& e, const std::vector<Input>& in, std::vector<cosi_input>& out) {
  for (const auto& i : in) {
    out.push_back({i.ns.str().c_str(), i.type.str().c_str(), nullptr,
                   i.kind == InputKind::kStrong         ? COSI_INPUT_STRONG
                   : i.kind == InputKind::kDestroyReady ? COSI_INPUT_DESTROY_READY
                                                        : COSI_INPUT_WEAK});
    if (i.id) {
      e.strings.push_back(*i.id);
      out.back().id = nullptr;  // set below, once `strings` stops growing
    }
  }
}

void describe_outputs(const std::vector<Output>& in, std::vector<cosi_output>& out) {
  for (const auto& o : in) {
    out.push_back({o.type.str().c_str(), o.kind == OutputKind::kShared ? COSI_OUTPUT_SHARED : COSI_OUTPUT_EXCLUSIVE});
  }
}

// Points the inputs that name an id at their strings (after `strings` is complete).
void bind_ids(Exported& e, const std::vector<Input>& all) {
  std::size_t next = 0;
  auto bind = [&](std::vector<cosi_input>& list, std::size_t offset) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (all[offset + i].id) list[i].id = e.strings[next++].c_str();
    }
  };
  bind(e.inputs, 0);
  bind(e.mapped, e.inputs.size());
}

struct Plugin {
  Definition definition;
  std::deque<Exported> exported;  // stable addresses
  std::vector<cosi_controller> controllers;
  cosi_plugin descriptor{};
};

}  // namespace

Result<ResourcePtr> HostState::get(const Pointer& pointer) {
  StringSink out, error;
  int32_t code = host_.get(host_.context, c_pointer(pointer), out.sink(), error.sink());
  if (code != 0) return error_from(code, error.value);
  return decode(out.value, types_);
}

Result<std::vector<ResourcePtr>> HostState::list(const Kind& kind, const ListOptions& options) {
  ListSink out;
  StringSink error;
  int32_t code = host_.list(host_.context, view(kind.ns.view()), view(kind.type.view()), out.sink(), error.sink());
  if (code != 0) return error_from(code, error.value);
  const Selection selection = Selection::of(options.label_queries, options.id_query);
  std::vector<ResourcePtr> result;
  for (const auto& bytes : out.values) {
    auto r = decode(bytes, types_);
    if (!r.ok()) return r.error();
    if (selection.matches(**r)) result.push_back(std::move(*r));
  }
  return result;
}

Result<ResourcePtr> HostState::create(ResourcePtr resource, const CreateOptions&) {
  auto bytes = encode(*resource);
  if (!bytes.ok()) return bytes.error();
  StringSink out, error;
  int32_t code = host_.create(host_.context, view(*bytes), out.sink(), error.sink());
  if (code != 0) return error_from(code, error.value);
  return decode(out.value, types_);
}

Result<ResourcePtr> HostState::update(ResourcePtr resource, const UpdateOptions& options) {
  auto bytes = encode(*resource);
  if (!bytes.ok()) return bytes.error();
  int32_t phase = !options.expected_phase ? -1 : *options.expected_phase == Phase::kRunning ? 0 : 1;
  StringSink out, error;
  int32_t code = host_.update(host_.context, view(*bytes), phase, out.sink(), error.sink());
  if (code != 0) return error_from(code, error.value);
  return decode(out.value, types_);
}

Status HostState::destroy(const Pointer& pointer, const DestroyOptions&) {
  StringSink error;
  int32_t code = host_.destroy(host_.context, c_pointer(pointer), error.sink());
  if (code != 0) return error_from(code, error.value);
  return {};
}

Result<WatchPtr> HostState::watch(const Pointer& pointer, const WatchOptions&) {
  return Error(ErrorKind::kUnimplemented, "a plugin cannot watch " + pointer.to_string() + ": the host routes events");
}

Result<WatchPtr> HostState::watch_kind(const Kind& kind, const WatchKindOptions&) {
  return Error(ErrorKind::kUnimplemented, "a plugin cannot watch " + kind.to_string() + ": the host routes events");
}

const cosi_plugin* export_plugin(Definition (*make)()) {
  // Every plugin in the process calls this one copy of the SDK: one descriptor per plugin,
  // keyed by its make function, built once and kept for the process.
  static std::mutex mu;
  static auto* plugins = new std::map<Definition (*)(), Plugin*>();
  std::lock_guard lock(mu);
  Plugin*& plugin = (*plugins)[make];
  if (plugin != nullptr) return &plugin->descriptor;
  plugin = new Plugin{make()};
  Definition& d = plugin->definition;

  auto add = [&](Exported e, const std::vector<Input>& primary, const std::vector<Input>& mapped,
                 const std::vector<Output>& outputs, int32_t shape, int32_t concurrency) {
    std::vector<Input> all = primary;
    all.insert(all.end(), mapped.begin(), mapped.end());
    e.types = &d.types;
    e.rules = std::make_shared<const AccessRules>(Atom(e.name), all, outputs);
    Exported& x = plugin->exported.emplace_back(std::move(e));
    describe(x, primary, x.inputs);
    describe(x, mapped, x.mapped);
    describe_outputs(outputs, x.outputs);
    bind_ids(x, all);
    cosi_controller c{};
    c.name = x.name.c_str();
    c.shape = shape;
    c.inputs = x.inputs.data();
    c.inputs_len = x.inputs.size();
    c.mapped_inputs = x.mapped.data();
    c.mapped_inputs_len = x.mapped.size();
    c.outputs = x.outputs.data();
    c.outputs_len = x.outputs.size();
    c.concurrency = concurrency;
    c.instance = &x;
    c.reconcile = shape == COSI_WHOLE_SET ? reconcile_whole : nullptr;
    c.reconcile_key = shape == COSI_PER_KEY ? reconcile_key : nullptr;
    c.map = shape == COSI_PER_KEY ? map_keys : nullptr;
    plugin->controllers.push_back(c);
  };
  for (auto& c : d.controllers) {
    Exported e;
    e.name = c->name();
    auto inputs = c->inputs();
    auto outputs = c->outputs();
    e.whole = std::move(c);
    add(std::move(e), inputs, {}, outputs, COSI_WHOLE_SET, 1);
  }
  for (auto& k : d.keyed) {
    Exported e;
    e.name = k->name();
    auto primary = k->primary_inputs();
    auto mapped = k->mapped_inputs();
    auto outputs = k->outputs();
    int32_t concurrency = k->concurrency();
    e.keyed = std::move(k);
    add(std::move(e), primary, mapped, outputs, COSI_PER_KEY, concurrency);
  }
  plugin->descriptor = {COSI_PLUGIN_ABI_MAJOR, COSI_PLUGIN_ABI_MINOR, d.name.c_str(),
                        plugin->controllers.data(), plugin->controllers.size()};
  return &plugin->descriptor;
}

}  // namespace cosi::plugin
