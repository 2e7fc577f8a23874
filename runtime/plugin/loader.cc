#include "runtime/plugin/loader.h"

#include <dlfcn.h>

#include <algorithm>

#include "runtime/controller/context.h"
#include "runtime/plugin/abi_support.h"
#include "runtime/proto/resource_codec.h"

namespace cosi {
namespace {

using namespace plugin;

// What the host functions reach through cosi_host::context during one call into a plugin.
struct HostCall {
  ControllerReader* reader;
  ControllerContext* writer;  // null in map(): reads only
  const ResourceTypes* types;
  Logger log;
};

HostCall& call(void* context) { return *static_cast<HostCall*>(context); }

int32_t write_resource(const Result<ResourcePtr>& r, cosi_sink out, cosi_sink error) {
  if (!r.ok()) return status_code(r.error(), error);
  cosi::resource::Resource msg;
  if (auto s = encode_resource(**r, &msg); !s.ok()) return status_code(s, error);
  write(out, msg.SerializeAsString());
  return 0;
}

Result<MutableResourcePtr> read_resource(const HostCall& c, cosi_view bytes) {
  cosi::resource::Resource msg;
  if (!msg.ParseFromArray(bytes.data, static_cast<int>(bytes.size))) {
    return Error(ErrorKind::kInvalidArgument, "plugin sent bytes that are not a cosi.resource.Resource");
  }
  return decode_resource(msg, *c.types);
}

Status read_only(const HostCall& c) {
  if (c.writer != nullptr) return {};
  return Error(ErrorKind::kPermissionDenied,
               "controller \"" + c.reader->name() + "\" may only read while mapping an input");
}

cosi_host make_host(HostCall* c) {
  cosi_host h{};
  h.abi_major = COSI_PLUGIN_ABI_MAJOR;
  h.abi_minor = COSI_PLUGIN_ABI_MINOR;
  h.context = c;
  h.get = [](void* ctx, cosi_pointer p, cosi_sink out, cosi_sink error) -> int32_t {
    return write_resource(call(ctx).reader->get(from_c(p)), out, error);
  };
  h.list = [](void* ctx, cosi_view ns, cosi_view type, cosi_sink out, cosi_sink error) -> int32_t {
    auto list = call(ctx).reader->list(Kind{Atom(str(ns)), Atom(str(type))});
    if (!list.ok()) return status_code(list.error(), error);
    for (const auto& r : *list) {
      if (int32_t code = write_resource(r, out, error); code != 0) return code;
    }
    return 0;
  };
  h.create = [](void* ctx, cosi_view bytes, cosi_sink out, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    auto r = read_resource(c, bytes);
    if (!r.ok()) return status_code(r.error(), error);
    return write_resource(c.writer->create(std::move(*r)), out, error);
  };
  h.update = [](void* ctx, cosi_view bytes, int32_t phase, cosi_sink out, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    auto r = read_resource(c, bytes);
    if (!r.ok()) return status_code(r.error(), error);
    std::optional<Phase> expected;
    if (phase == 0) expected = Phase::kRunning;
    if (phase == 1) expected = Phase::kTearingDown;
    return write_resource(c.writer->update(std::move(*r), expected), out, error);
  };
  h.destroy = [](void* ctx, cosi_pointer p, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    return status_code(c.writer->destroy(from_c(p)), error);
  };
  h.teardown = [](void* ctx, cosi_pointer p, int32_t* ready, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    auto r = c.writer->teardown(from_c(p));
    if (!r.ok()) return status_code(r.error(), error);
    if (ready != nullptr) *ready = *r ? 1 : 0;
    return 0;
  };
  h.add_finalizer = [](void* ctx, cosi_pointer p, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    return status_code(c.writer->add_finalizer(from_c(p)), error);
  };
  h.remove_finalizer = [](void* ctx, cosi_pointer p, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    return status_code(c.writer->remove_finalizer(from_c(p)), error);
  };
  h.keep = [](void* ctx, cosi_pointer p, cosi_sink error) -> int32_t {
    HostCall& c = call(ctx);
    if (auto s = read_only(c); !s.ok()) return status_code(s, error);
    return status_code(c.writer->keep(from_c(p)), error);
  };
  h.log = [](void* ctx, int32_t level, cosi_view message) {
    auto l = level < 0 || level > 3 ? LogLevel::kInfo : static_cast<LogLevel>(level);
    call(ctx).log.log(l, str(message));
  };
  return h;
}

ReconcileResult outcome_of(const cosi_outcome& o, const std::string& message, const std::string& controller) {
  switch (o.kind) {
    case COSI_DONE: return ReconcileResult::done();
    case COSI_REQUEUE_AFTER: return ReconcileResult::requeue_after(std::chrono::nanoseconds(o.requeue_after_ns));
    case COSI_RETRY: return ReconcileResult::retry(error_from(o.error_kind, message));
    case COSI_TERMINAL: return ReconcileResult::terminal(error_from(o.error_kind, message));
    case COSI_CRASHED: throw std::runtime_error(message);  // the runtime counts it as a crash
    default:
      return ReconcileResult::retry(Error(ErrorKind::kInternal, "plugin controller \"" + controller +
                                                                    "\" returned an unknown outcome " +
                                                                    std::to_string(o.kind)));
  }
}

std::vector<Input> inputs_of(const cosi_input* in, std::size_t n) {
  std::vector<Input> out;
  for (std::size_t i = 0; i < n; ++i) {
    Input input{Atom(in[i].ns), Atom(in[i].type)};
    if (in[i].id != nullptr) input.id = std::string(in[i].id);
    input.kind = in[i].kind == COSI_INPUT_STRONG          ? InputKind::kStrong
                 : in[i].kind == COSI_INPUT_DESTROY_READY ? InputKind::kDestroyReady
                                                          : InputKind::kWeak;
    out.push_back(std::move(input));
  }
  return out;
}

std::vector<Output> outputs_of(const cosi_output* out, std::size_t n) {
  std::vector<Output> result;
  for (std::size_t i = 0; i < n; ++i) {
    result.push_back({Atom(out[i].type), out[i].kind == COSI_OUTPUT_SHARED ? OutputKind::kShared : OutputKind::kExclusive});
  }
  return result;
}

class PluginController final : public Controller {
 public:
  PluginController(const cosi_controller& d, const ResourceTypes& t) : d_(d), types_(t) {}
  std::string name() const override { return d_.name; }
  std::vector<Input> inputs() const override { return inputs_of(d_.inputs, d_.inputs_len); }
  std::vector<Output> outputs() const override { return outputs_of(d_.outputs, d_.outputs_len); }
  ReconcileResult reconcile(ControllerContext& ctx) override {
    HostCall c{&ctx, &ctx, &types_, ctx.log()};
    cosi_host host = make_host(&c);
    StringSink message;
    cosi_outcome outcome{COSI_DONE, 0, 0, message.sink()};
    d_.reconcile(d_.instance, &host, &outcome);
    return outcome_of(outcome, message.value, d_.name);
  }

 private:
  const cosi_controller& d_;
  const ResourceTypes& types_;
};

class PluginKeyedController final : public KeyedController {
 public:
  PluginKeyedController(const cosi_controller& d, const ResourceTypes& t) : d_(d), types_(t) {}
  std::string name() const override { return d_.name; }
  std::vector<Input> primary_inputs() const override { return inputs_of(d_.inputs, d_.inputs_len); }
  std::vector<Input> mapped_inputs() const override { return inputs_of(d_.mapped_inputs, d_.mapped_inputs_len); }
  std::vector<Output> outputs() const override { return outputs_of(d_.outputs, d_.outputs_len); }
  int concurrency() const override { return d_.concurrency; }

  std::vector<Pointer> map(ControllerReader& reader, const Pointer& changed) override {
    if (d_.map == nullptr) return {};
    HostCall c{&reader, nullptr, &types_, Logger()};
    cosi_host host = make_host(&c);
    StringSink keys;
    d_.map(d_.instance, &host, c_pointer(changed), keys.sink());
    auto decoded = decode_keys(keys.value);
    if (!decoded.ok()) throw std::runtime_error(decoded.error().message());
    return *decoded;
  }

  ReconcileResult reconcile(ControllerContext& ctx, const Pointer& key) override {
    HostCall c{&ctx, &ctx, &types_, ctx.log()};
    cosi_host host = make_host(&c);
    StringSink message;
    cosi_outcome outcome{COSI_DONE, 0, 0, message.sink()};
    d_.reconcile_key(d_.instance, &host, c_pointer(key), &outcome);
    return outcome_of(outcome, message.value, d_.name);
  }

 private:
  const cosi_controller& d_;
  const ResourceTypes& types_;
};

Error plugin_error(const std::filesystem::path& file, const std::string& why) {
  return Error(ErrorKind::kInvalidArgument, "plugin " + file.string() + ": " + why);
}

}  // namespace

PluginLoader::PluginLoader(std::vector<std::filesystem::path> directories, const ResourceTypes& types)
    : types_(types) {
  for (const auto& d : directories) {
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(d, ec);
    directories_.push_back(ec ? d : canonical);
  }
}

Result<std::vector<std::string>> PluginLoader::load(const std::filesystem::path& file, Runtime& runtime) {
  std::error_code ec;
  auto path = std::filesystem::canonical(file, ec);
  if (ec) return plugin_error(file, "cannot be read: " + ec.message());
  bool allowed = std::any_of(directories_.begin(), directories_.end(), [&](const auto& dir) {
    return path.parent_path() == dir;
  });
  if (!allowed) {
    return Error(ErrorKind::kPermissionDenied,
                 "plugin " + path.string() + ": not inside a configured plugin directory");
  }

  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) return plugin_error(path, std::string("cannot be loaded: ") + dlerror());
  auto entry = reinterpret_cast<cosi_plugin_entry_fn>(dlsym(handle, COSI_PLUGIN_ENTRY));
  if (entry == nullptr) {
    return plugin_error(path, "has no symbol " COSI_PLUGIN_ENTRY " (is it a cosi plugin?)");
  }
  const cosi_plugin* p = entry();
  if (p == nullptr) return plugin_error(path, COSI_PLUGIN_ENTRY " returned no descriptor");
  if (p->abi_major != COSI_PLUGIN_ABI_MAJOR || p->abi_minor > COSI_PLUGIN_ABI_MINOR) {
    return plugin_error(path, "built for plugin ABI " + std::to_string(p->abi_major) + "." +
                                  std::to_string(p->abi_minor) + "; this host speaks " +
                                  std::to_string(COSI_PLUGIN_ABI_MAJOR) + "." +
                                  std::to_string(COSI_PLUGIN_ABI_MINOR));
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < p->controllers_len; ++i) {
    const cosi_controller& d = p->controllers[i];
    if (d.name == nullptr || (d.shape == COSI_WHOLE_SET && d.reconcile == nullptr) ||
        (d.shape == COSI_PER_KEY && d.reconcile_key == nullptr)) {
      return plugin_error(path, "controller " + std::to_string(i) + " is incomplete");
    }
    Status added = d.shape == COSI_PER_KEY ? runtime.add(std::make_unique<PluginKeyedController>(d, types_))
                                           : runtime.add(std::make_unique<PluginController>(d, types_));
    if (!added.ok()) return plugin_error(path, added.error().message());
    names.emplace_back(d.name);
  }
  return names;
}

Result<std::vector<std::string>> PluginLoader::load_all(Runtime& runtime) {
  std::vector<std::filesystem::path> files;
  for (const auto& dir : directories_) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".so") files.push_back(entry.path());
    }
    if (ec) return Error(ErrorKind::kInvalidArgument, "plugin directory " + dir.string() + ": " + ec.message());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (const auto& f : files) {
    auto loaded = load(f, runtime);
    if (!loaded.ok()) return loaded.error();
    names.insert(names.end(), loaded->begin(), loaded->end());
  }
  return names;
}

}  // namespace cosi
