#include "api/wire_bytes.h"

#include <chrono>

namespace cosi::api {
namespace {

void varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void len_field(std::string& out, int field, std::string_view bytes) {
  varint(out, (static_cast<std::uint64_t>(field) << 3) | 2);
  varint(out, bytes.size());
  out.append(bytes);
}

// proto3: empty strings are not written.
void string_field(std::string& out, int field, std::string_view s) {
  if (!s.empty()) len_field(out, field, s);
}

void varint_field(std::string& out, int field, std::uint64_t v) {
  if (v == 0) return;
  varint(out, static_cast<std::uint64_t>(field) << 3);
  varint(out, v);
}

// google.protobuf.Timestamp{seconds = 1, nanos = 2}, always present (as the codec writes it).
void timestamp_field(std::string& out, int field, Timestamp t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::int64_t seconds = ns / 1000000000, nanos = ns % 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    --seconds;
  }
  std::string body;
  varint_field(body, 1, static_cast<std::uint64_t>(seconds));
  varint_field(body, 2, static_cast<std::uint64_t>(nanos));
  len_field(out, field, body);
}

void map_field(std::string& out, int field, const KeyValues& kv) {
  for (const auto& [k, v] : kv) {
    std::string entry;
    len_field(entry, 1, k);
    len_field(entry, 2, v);
    len_field(out, field, entry);
  }
}

// cosi.resource.Resource, field by field (resource.proto), the same bytes the generated
// code produces for the message encode_resource() builds.
Result<std::string> serialize(const Resource& resource) {
  const Resource::EncodedSpec& spec = resource.encoded_spec();
  if (!spec.encodable) {
    return Error(ErrorKind::kInvalidArgument,
                 resource.metadata().describe() + ": its spec type has no protobuf encoding");
  }
  const Metadata& md = resource.metadata();
  std::string meta;
  meta.reserve(160);
  string_field(meta, 1, md.ns().view());
  string_field(meta, 2, md.type().view());
  string_field(meta, 3, md.id());
  string_field(meta, 4, md.version().to_string());
  string_field(meta, 5, md.owner().view());
  string_field(meta, 6, to_string(md.phase()));
  timestamp_field(meta, 7, md.created());
  timestamp_field(meta, 8, md.updated());
  for (const auto& f : md.finalizers()) len_field(meta, 9, f);
  map_field(meta, 10, md.labels());
  map_field(meta, 11, md.annotations());

  std::string spec_bytes;
  spec_bytes.reserve(spec.proto.size() + spec.yaml.size() + 8);
  string_field(spec_bytes, 1, spec.proto);
  string_field(spec_bytes, 2, spec.yaml);

  std::string out;
  out.reserve(meta.size() + spec_bytes.size() + 8);
  len_field(out, 1, meta);
  len_field(out, 2, spec_bytes);  // always present: clients require a spec
  return out;
}

// cosi.resource.Event: resource=1, event_type=2, old=3, error=4, bookmark=5.
Status append_event(std::string& out, const Event& e) {
  std::string body;
  if (e.resource) {
    auto r = resource_bytes(*e.resource);
    if (!r.ok()) return r.error();
    len_field(body, 1, *r);
  }
  varint_field(body, 2, static_cast<std::uint64_t>(e.type));
  if (e.old) {
    auto r = resource_bytes(*e.old);
    if (!r.ok()) return r.error();
    len_field(body, 3, *r);
  }
  if (e.error) len_field(body, 4, e.error->message());
  if (e.bookmark) len_field(body, 5, e.bookmark->bytes());
  len_field(out, 1, body);  // WatchResponse.event = 1
  return {};
}

}  // namespace

Result<std::string_view> resource_bytes(const Resource& resource) {
  if (const std::string* cached = resource.cached_wire()) return std::string_view(*cached);
  auto bytes = serialize(resource);
  if (!bytes.ok()) return bytes.error();
  return std::string_view(resource.cache_wire(std::move(*bytes)));
}

Result<std::string> list_response_bytes(const Resource& resource) {
  auto r = resource_bytes(resource);
  if (!r.ok()) return r.error();
  std::string out;
  out.reserve(r->size() + 8);
  len_field(out, 1, *r);  // ListResponse.resource = 1
  return out;
}

Result<std::string> watch_response_bytes(const Event* events, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (auto s = append_event(out, events[i]); !s.ok()) return s.error();
  }
  return out;
}

}  // namespace cosi::api
