#include "runtime/state/selection.h"

namespace cosi {

Selection Selection::of_id(std::string id) {
  Selection s;
  s.id_ = std::move(id);
  return s;
}

Selection Selection::of(std::vector<LabelQuery> label_queries, std::optional<IDQuery> id_query) {
  Selection s;
  s.label_queries_ = std::move(label_queries);
  s.id_query_ = std::move(id_query);
  return s;
}

bool Selection::matches(const Resource& resource) const {
  const Metadata& md = resource.metadata();
  if (id_ && md.id() != *id_) return false;
  if (id_query_ && !id_query_->matches(md.id())) return false;
  return matches_any(label_queries_, md.labels());
}

std::optional<Event> Selection::view(const Event& raw) const {
  if (selects_all()) return raw;
  if (id_ && raw.resource->metadata().id() != *id_) return std::nullopt;
  if (raw.type != EventType::kUpdated) {
    return matches(*raw.resource) ? std::optional<Event>(raw) : std::nullopt;
  }
  const bool was = matches(*raw.old);
  const bool is = matches(*raw.resource);
  if (was && is) return raw;
  if (!was && !is) return std::nullopt;
  return Event{is ? EventType::kCreated : EventType::kDestroyed, raw.resource, nullptr,
               raw.bookmark, nullptr};
}

}  // namespace cosi
