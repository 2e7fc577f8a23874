#include "api/state_wire.h"

#include "runtime/proto/resource_codec.h"

namespace cosi::api {

Result<std::vector<LabelQuery>> label_queries_from_wire(const WireLabelQueries& wire) {
  std::vector<LabelQuery> out;
  for (const auto& q : wire) {
    LabelQuery query;
    for (const auto& t : q.terms()) {
      query.add(LabelTerm{t.key(), static_cast<LabelOp>(t.op()), {t.value().begin(), t.value().end()}, t.invert()});
    }
    if (auto s = query.validate(); !s.ok()) return s.error();
    out.push_back(std::move(query));
  }
  return out;
}

void label_queries_to_wire(const std::vector<LabelQuery>& queries, WireLabelQueries* wire) {
  for (const auto& q : queries) {
    auto* w = wire->Add();
    for (const auto& t : q.terms()) {
      auto* term = w->add_terms();
      term->set_key(t.key);
      term->set_op(static_cast<cosi::resource::LabelTerm::Operation>(t.op));
      for (const auto& v : t.values) term->add_value(v);
      term->set_invert(t.invert);
    }
  }
}

Result<std::optional<IDQuery>> id_query_from_wire(const cosi::resource::IDQuery& wire) {
  if (wire.regexp().empty()) return std::optional<IDQuery>();
  auto q = IDQuery::compile(wire.regexp());
  if (!q.ok()) return q.error();
  return std::optional<IDQuery>(std::move(*q));
}

Status event_to_wire(const Event& event, cosi::resource::Event* wire) {
  wire->set_event_type(static_cast<cosi::resource::EventType>(event.type));
  if (event.resource) {
    if (auto s = encode_resource(*event.resource, wire->mutable_resource()); !s.ok()) return s;
  }
  if (event.old) {
    if (auto s = encode_resource(*event.old, wire->mutable_old()); !s.ok()) return s;
  }
  if (event.bookmark) wire->set_bookmark(event.bookmark->bytes());
  if (event.error) wire->set_error(event.error->message());
  return {};
}

Result<Event> event_from_wire(const cosi::resource::Event& wire, const ResourceTypes& types) {
  Event e;
  e.type = static_cast<EventType>(wire.event_type());
  if (wire.has_resource()) {
    auto r = decode_resource(wire.resource(), types);
    if (!r.ok()) return r.error();
    e.resource = std::move(*r);
  }
  if (wire.has_old()) {
    auto r = decode_resource(wire.old(), types);
    if (!r.ok()) return r.error();
    e.old = std::move(*r);
  }
  if (wire.has_bookmark()) {
    auto b = Bookmark::from_bytes(wire.bookmark());
    if (!b) return Error(ErrorKind::kInvalidBookmark, "server sent a bookmark this client cannot read");
    e.bookmark = *b;
  }
  if (wire.has_error()) e.error = std::make_shared<const Error>(ErrorKind::kUnavailable, wire.error());
  return e;
}

}  // namespace cosi::api
