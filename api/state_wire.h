// Queries and events between the store's types and cosi.resource messages — shared by the
// State server and the gRPC-backed State.
#pragma once

#include <optional>
#include <vector>

#include "runtime/proto/resource_types.h"
#include "runtime/resource/id_query.h"
#include "runtime/resource/label_query.h"
#include "runtime/state/event.h"
#include "state.pb.h"

namespace cosi::api {

using WireLabelQueries = google::protobuf::RepeatedPtrField<cosi::resource::LabelQuery>;

// kUnimplemented for an unknown operation, kInvalidArgument for a bad value.
Result<std::vector<LabelQuery>> label_queries_from_wire(const WireLabelQueries& wire);
void label_queries_to_wire(const std::vector<LabelQuery>& queries, WireLabelQueries* wire);

// nullopt for an empty regexp; kInvalidArgument for one RE2 refuses.
Result<std::optional<IDQuery>> id_query_from_wire(const cosi::resource::IDQuery& wire);

// Every resource an event carries goes with a spec, tombstones included.
Status event_to_wire(const Event& event, cosi::resource::Event* wire);
Result<Event> event_from_wire(const cosi::resource::Event& wire, const ResourceTypes& types);

}  // namespace cosi::api
