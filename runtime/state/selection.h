// Selection: which resources of a kind a list or a watch asks for — one id, label queries
// (OR-ed), an id regular expression — and how a raw change looks through it. A watcher sees
// an update that leaves its selection as Destroyed and one that enters it as Created:
//
//   Selection s = Selection::of_labels({LabelQuery{LabelTerm::equal("role", "cp")}});
//   s.view(Updated(old: role=cp, new: role=worker))  -> Destroyed(new)
//   s.view(Updated(old: role=worker, new: role=cp))  -> Created(new)
//   s.view(Updated(old: role=worker, new: role=x))   -> nullopt (never seen)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/resource/id_query.h"
#include "runtime/resource/label_query.h"
#include "runtime/state/event.h"

namespace cosi {

class Selection {
 public:
  Selection() = default;  // everything
  static Selection of_id(std::string id);
  static Selection of(std::vector<LabelQuery> label_queries, std::optional<IDQuery> id_query);

  bool selects_all() const { return !id_ && label_queries_.empty() && !id_query_; }
  bool matches(const Resource& resource) const;

  // The event as this selection's watcher sees it; nullopt when it sees nothing. Created,
  // Updated and Destroyed only.
  std::optional<Event> view(const Event& raw) const;

 private:
  std::optional<std::string> id_;
  std::vector<LabelQuery> label_queries_;
  std::optional<IDQuery> id_query_;
};

}  // namespace cosi
