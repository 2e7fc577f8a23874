#include "runtime/state/memory_state.h"

#include <mutex>
#include <random>

namespace cosi {
namespace {

// A stream number for the bookmarks of a new kind: random, so bookmarks from another process
// or another kind are recognised as foreign.
std::uint64_t new_stream() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard lock(mu);
  return rng();
}

bool complete(const Pointer& p) { return !p.id.empty() && !p.ns.empty() && !p.type.empty(); }
bool complete(const Kind& k) { return !k.ns.empty() && !k.type.empty(); }

[[gnu::cold]] Error incomplete(const Pointer& p, std::string_view what) {
  return Error(ErrorKind::kInvalidArgument,
               std::string(what) + " " + p.to_string() + ": namespace, type and id must be set");
}

[[gnu::cold]] Error incomplete(const Kind& k, std::string_view what) {
  return Error(ErrorKind::kInvalidArgument,
               std::string(what) + " " + k.to_string() + ": namespace and type must be set");
}

[[gnu::cold]] Error missing(const Pointer& p) {
  return Error(ErrorKind::kNotFound, "resource " + p.to_string() + " doesn't exist");
}

// The object to store: the caller's own when nobody else holds it, else a copy. Resources are
// made by make_shared of a non-const object (make_resource, clone), so writing to one that has
// no other owner is sound.
MutableResourcePtr take(ResourcePtr&& resource) {
  if (resource.use_count() == 1) return std::const_pointer_cast<Resource>(std::move(resource));
  return resource->clone();
}

class MemoryWatch final : public Watch {
 public:
  MemoryWatch(std::shared_ptr<Collection> collection, std::shared_ptr<WatchCore> core)
      : collection_(std::move(collection)), core_(std::move(core)) {}
  ~MemoryWatch() override { cancel(); }

  std::size_t poll(std::vector<Event>& out, std::size_t max) override {
    return core_->poll(out, max);
  }
  bool wait(std::chrono::steady_clock::time_point deadline) override {
    return core_->wait(deadline);
  }
  void set_notify(std::function<void()> notify) override { core_->set_notify(std::move(notify)); }
  void cancel() override {
    if (!collection_) return;
    collection_->unwatch(core_.get());
    core_->cancel();
    collection_.reset();
  }

 private:
  std::shared_ptr<Collection> collection_;
  std::shared_ptr<WatchCore> core_;
};

Result<WatchPtr> make_watch(std::shared_ptr<Collection> collection,
                            Result<std::shared_ptr<WatchCore>> core) {
  if (!core.ok()) return core.error();
  return WatchPtr(std::make_unique<MemoryWatch>(std::move(collection), std::move(*core)));
}

}  // namespace

MemoryState::MemoryState(MemoryStateOptions options)
    : options_(std::move(options)), kinds_([this](const Kind& kind) {
        return std::make_shared<Collection>(
            kind, new_stream(), CollectionLimits{options_.history, options_.watch_buffer});
      }) {}

MemoryState::~MemoryState() = default;

Timestamp MemoryState::now() const {
  return options_.wall_clock ? options_.wall_clock() : std::chrono::system_clock::now();
}

Result<ResourcePtr> MemoryState::get(const Pointer& pointer) { return get(pointer.kind(), pointer.id); }

// The hot path: the kind's collection found by its atoms, the id looked up as a view.
Result<ResourcePtr> MemoryState::get(const Kind& kind, std::string_view id) {
  if (id.empty() || !complete(kind)) [[unlikely]] return incomplete(kind.at(std::string(id)), "get");
  Collection* collection = kinds_.find(kind);
  if (!collection) [[unlikely]] return missing(kind.at(std::string(id)));
  return collection->get(id);
}

Result<std::vector<ResourcePtr>> MemoryState::list(const Kind& kind, const ListOptions& options) {
  if (!complete(kind)) return incomplete(kind, "list");
  for (const auto& q : options.label_queries) {
    if (auto s = q.validate(); !s.ok()) return s.error();
  }
  Collection* collection = kinds_.find(kind);
  if (!collection) return std::vector<ResourcePtr>{};
  return collection->list(Selection::of(options.label_queries, options.id_query));
}

Result<ResourcePtr> MemoryState::create(ResourcePtr resource, const CreateOptions& options) {
  if (!resource) return Error(ErrorKind::kInvalidArgument, "create: no resource");
  if (!complete(resource->metadata().pointer())) {
    return incomplete(resource->metadata().pointer(), "create");
  }
  Collection* collection = kinds_.find_or_add(resource->metadata().kind());
  return collection->create(take(std::move(resource)), options.owner, now());
}

Result<ResourcePtr> MemoryState::update(ResourcePtr resource, const UpdateOptions& options) {
  if (!resource) return Error(ErrorKind::kInvalidArgument, "update: no resource");
  const Pointer pointer = resource->metadata().pointer();
  if (!complete(pointer)) return incomplete(pointer, "update");
  Collection* collection = kinds_.find(pointer.kind());
  if (!collection) return missing(pointer);
  return collection->update(take(std::move(resource)), options, now());
}

Status MemoryState::destroy(const Pointer& pointer, const DestroyOptions& options) {
  if (!complete(pointer)) return incomplete(pointer, "destroy");
  Collection* collection = kinds_.find(pointer.kind());
  if (!collection) return missing(pointer);
  return collection->destroy(pointer.id, options.owner);
}

Result<WatchPtr> MemoryState::watch(const Pointer& pointer, const WatchOptions& options) {
  if (!complete(pointer)) return incomplete(pointer, "watch");
  Collection* collection = kinds_.find_or_add(pointer.kind());
  return make_watch(kinds_.share(collection), collection->watch(pointer.id, options));
}

Result<WatchPtr> MemoryState::watch_kind(const Kind& kind, const WatchKindOptions& options) {
  if (!complete(kind)) return incomplete(kind, "watch");
  for (const auto& q : options.label_queries) {
    if (auto s = q.validate(); !s.ok()) return s.error();
  }
  Collection* collection = kinds_.find_or_add(kind);
  return make_watch(kinds_.share(collection),
                    collection->watch_kind(Selection::of(options.label_queries, options.id_query),
                                           options));
}

std::vector<std::pair<Kind, CollectionStats>> MemoryState::stats() const {
  auto collections = kinds_.all();
  std::vector<std::pair<Kind, CollectionStats>> out;
  out.reserve(collections.size());
  for (const auto& c : collections) out.emplace_back(c->kind(), c->stats());
  return out;
}

}  // namespace cosi
