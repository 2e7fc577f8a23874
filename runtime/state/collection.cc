#include "runtime/state/collection.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "runtime/resource/tombstone.h"
#include "runtime/state/sort_by_id.h"

namespace cosi {
namespace {

void wake_all(const std::vector<std::shared_ptr<WatchCore>>& wake) {
  for (const auto& core : wake) core->notify();
}

std::string finalizer_list(const Finalizers& finalizers) {
  std::string out;
  for (const auto& name : finalizers) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

Collection::Collection(Kind kind, std::uint64_t stream, CollectionLimits limits)
    : kind_(kind), stream_(stream), limits_(limits), history_(limits.history) {}

[[gnu::cold]] Error Collection::missing(std::string_view id) const {
  return Error(ErrorKind::kNotFound, "resource " + kind_.at(std::string(id)).to_string() + " doesn't exist");
}

Result<ResourcePtr> Collection::get(std::string_view id) const {
  {
    std::lock_guard lock(mu_);
    if (const ResourcePtr* found = items_.find(id)) [[likely]] return *found;
  }
  return missing(id);  // the message is built after letting go: a miss is a create's first step
}

std::vector<ResourcePtr> Collection::list(const Selection& selection) const {
  std::vector<ResourcePtr> out;
  {
    std::lock_guard lock(mu_);
    out.reserve(items_.size());
    items_.for_each([&](const ResourcePtr& r) {
      if (selection.matches(*r)) out.push_back(r);
    });
  }
  sort_by_id(out);
  return out;
}

Result<ResourcePtr> Collection::create(MutableResourcePtr resource, Atom owner, Timestamp now) {
  Metadata& md = resource->mutable_metadata();
  md.set_version(Version(1));
  md.set_owner(owner);
  md.set_created(now);
  md.set_updated(now);
  ResourcePtr stored = std::move(resource);

  Watchers wake;
  {
    std::lock_guard lock(mu_);
    if (!items_.insert(stored)) {
      return Error(ErrorKind::kAlreadyExists,
                   "resource " + stored->metadata().describe() + " already exists");
    }
    publish(EventType::kCreated, stored, nullptr, wake);
  }
  wake_all(wake);
  return stored;
}

Result<ResourcePtr> Collection::update(MutableResourcePtr resource, const UpdateOptions& options,
                                       Timestamp now) {
  Metadata& md = resource->mutable_metadata();
  Watchers wake;
  ResourcePtr stored;
  {
    std::lock_guard lock(mu_);
    ResourcePtr* slot = items_.find(md.id());
    if (slot == nullptr) return missing(md.id());
    const ResourcePtr& current = *slot;
    const Metadata& cur = current->metadata();
    if (cur.version() != md.version()) {
      return Error(ErrorKind::kConflict, "resource " + md.describe() + " update conflict: expected version " +
                                             md.version().to_string() + ", stored version is " +
                                             cur.version().to_string());
    }
    if (cur.owner() != options.owner) {
      return Error(ErrorKind::kOwnerConflict,
                   "resource " + md.describe() + " is owned by \"" + cur.owner().str() +
                       "\", not by \"" + options.owner.str() + "\"");
    }
    if (options.expected_phase && cur.phase() != *options.expected_phase) {
      return Error(ErrorKind::kPhaseConflict,
                   "resource " + md.describe() + " is in phase " + std::string(to_string(cur.phase())) +
                       ", expected " + std::string(to_string(*options.expected_phase)));
    }
    if (current->same_content(*resource)) return current;

    md.set_version(cur.version().next());
    md.set_owner(cur.owner());
    md.set_created(cur.created());
    md.set_updated(now);
    stored = std::move(resource);
    ResourcePtr old = std::exchange(*slot, stored);
    publish(EventType::kUpdated, stored, std::move(old), wake);
  }
  wake_all(wake);
  return stored;
}

Status Collection::destroy(const std::string& id, Atom owner) {
  Watchers wake;
  {
    std::lock_guard lock(mu_);
    const ResourcePtr* found = items_.find(id);
    if (found == nullptr) return missing(id);
    const Metadata& cur = (*found)->metadata();
    if (cur.owner() != owner) {
      return Error(ErrorKind::kOwnerConflict, "resource " + cur.describe() + " is owned by \"" +
                                                  cur.owner().str() + "\", not by \"" +
                                                  owner.str() + "\"");
    }
    if (!cur.finalizers().empty()) {
      return Error(ErrorKind::kPendingFinalizers, "resource " + cur.describe() +
                                                      " has pending finalizers: " +
                                                      finalizer_list(cur.finalizers()));
    }
    ResourcePtr last = items_.erase(id);
    publish(EventType::kDestroyed, std::move(last), nullptr, wake);
  }
  wake_all(wake);
  return {};
}

void Collection::publish(EventType type, ResourcePtr resource, ResourcePtr old, Watchers& wake) {
  Event event{type, std::move(resource), std::move(old),
              Bookmark(stream_, history_.last_position() + 1), nullptr};
  for (const auto& core : watchers_) {
    if (core->offer(event)) wake.push_back(core);
  }
  history_.push(std::move(event));
}

Status Collection::check_bookmark(const Bookmark& bookmark) const {
  if (bookmark.stream() != stream_) {
    return Error(ErrorKind::kInvalidBookmark,
                 "bookmark for " + kind_.to_string() + " comes from another store or kind");
  }
  if (!history_.covers(bookmark.position())) {
    return Error(ErrorKind::kInvalidBookmark,
                 "bookmark for " + kind_.to_string() + " at position " +
                     std::to_string(bookmark.position()) + " is out of history (kept: " +
                     std::to_string(history_.first_position()) + ".." +
                     std::to_string(history_.last_position()) + ")");
  }
  return {};
}

std::size_t Collection::buffer_size(std::size_t requested) const {
  return requested != 0 ? requested : limits_.watch_buffer;
}

Result<std::shared_ptr<WatchCore>> Collection::watch(const std::string& id,
                                                     const WatchOptions& options) {
  const Pointer pointer = kind_.at(id);
  if (options.tail_events < 0) {
    return Error(ErrorKind::kInvalidArgument, "watch " + pointer.to_string() + ": negative tail_events");
  }
  if (options.tail_events > 0 && options.start_from_bookmark) {
    return Error(ErrorKind::kInvalidArgument,
                 "watch " + pointer.to_string() + ": tail_events and start_from_bookmark exclude each other");
  }
  Selection selection = Selection::of_id(id);

  std::lock_guard lock(mu_);
  std::vector<Event> first;
  if (options.start_from_bookmark) {
    if (auto s = check_bookmark(*options.start_from_bookmark); !s.ok()) return s.error();
    for (auto& e : history_.after(options.start_from_bookmark->position())) {
      if (auto v = selection.view(e)) first.push_back(std::move(*v));
    }
  } else if (options.tail_events > 0) {
    auto all = history_.tail(history_.last_position());
    for (auto& e : all) {
      if (auto v = selection.view(e)) first.push_back(std::move(*v));
    }
    auto keep = static_cast<std::size_t>(options.tail_events);
    if (first.size() > keep) first.erase(first.begin(), first.end() - static_cast<std::ptrdiff_t>(keep));
  } else {
    if (const ResourcePtr* found = items_.find(id)) {
      first.push_back(Event{EventType::kCreated, *found, nullptr, bookmark_now(), nullptr});
    } else {
      first.push_back(
          Event{EventType::kDestroyed, make_tombstone(pointer), nullptr, bookmark_now(), nullptr});
    }
  }
  auto core = std::make_shared<WatchCore>(std::move(selection), buffer_size(options.buffer),
                                          std::move(first));
  watchers_.push_back(core);
  return core;
}

Result<std::shared_ptr<WatchCore>> Collection::watch_kind(Selection selection,
                                                          const WatchKindOptions& options) {
  auto invalid = [&](const std::string& why) {
    return Error(ErrorKind::kInvalidArgument, "watch " + kind_.to_string() + ": " + why);
  };
  if (options.tail_events < 0) return invalid("negative tail_events");
  const int starts = (options.bootstrap_contents ? 1 : 0) + (options.tail_events > 0 ? 1 : 0) +
                     (options.start_from_bookmark ? 1 : 0);
  if (starts > 1) {
    return invalid("bootstrap_contents, tail_events and start_from_bookmark exclude each other");
  }

  std::lock_guard lock(mu_);
  std::vector<Event> first;
  if (options.start_from_bookmark) {
    if (auto s = check_bookmark(*options.start_from_bookmark); !s.ok()) return s.error();
    for (auto& e : history_.after(options.start_from_bookmark->position())) {
      if (auto v = selection.view(e)) first.push_back(std::move(*v));
    }
  } else if (options.tail_events > 0) {
    for (auto& e : history_.tail(static_cast<std::size_t>(options.tail_events))) {
      if (auto v = selection.view(e)) first.push_back(std::move(*v));
    }
  } else if (options.bootstrap_contents) {
    std::vector<ResourcePtr> contents;
    items_.for_each([&](const ResourcePtr& r) {
      if (selection.matches(*r)) contents.push_back(r);
    });
    sort_by_id(contents);
    first.reserve(contents.size() + 1);
    for (auto& r : contents) {
      first.push_back(Event{EventType::kCreated, std::move(r), nullptr, std::nullopt, nullptr});
    }
    first.push_back(Event{EventType::kBootstrapped, make_tombstone(kind_.at("")), nullptr,
                          bookmark_now(), nullptr});
  }
  auto core = std::make_shared<WatchCore>(std::move(selection), buffer_size(options.buffer),
                                          std::move(first));
  watchers_.push_back(core);
  return core;
}

void Collection::unwatch(const WatchCore* core) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(watchers_.begin(), watchers_.end(),
                         [&](const auto& w) { return w.get() == core; });
  if (it == watchers_.end()) return;
  retired_coalesced_ += (*it)->coalesced_events();
  *it = std::move(watchers_.back());
  watchers_.pop_back();
}

CollectionStats Collection::stats() const {
  std::lock_guard lock(mu_);
  CollectionStats stats{items_.size(), watchers_.size(), retired_coalesced_};
  for (const auto& core : watchers_) stats.coalesced_events += core->coalesced_events();
  return stats;
}

}  // namespace cosi
