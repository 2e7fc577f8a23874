#include "runtime/proto/resource_codec.h"

#include <chrono>

namespace cosi {
namespace {

void encode_time(Timestamp t, google::protobuf::Timestamp* out) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  std::int64_t seconds = ns / 1000000000;
  std::int64_t nanos = ns % 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    --seconds;
  }
  out->set_seconds(seconds);
  out->set_nanos(static_cast<std::int32_t>(nanos));
}

Timestamp decode_time(const google::protobuf::Timestamp& t) {
  return Timestamp(std::chrono::duration_cast<Timestamp::duration>(
      std::chrono::seconds(t.seconds()) + std::chrono::nanoseconds(t.nanos())));
}

}  // namespace

void encode_metadata(const Metadata& md, cosi::resource::Metadata* out) {
  out->set_namespace_(md.ns().str());
  out->set_type(md.type().str());
  out->set_id(md.id());
  out->set_version(md.version().to_string());
  out->set_owner(md.owner().str());
  out->set_phase(std::string(to_string(md.phase())));
  encode_time(md.created(), out->mutable_created());
  encode_time(md.updated(), out->mutable_updated());
  for (const auto& f : md.finalizers()) out->add_finalizers(f);
  for (const auto& [k, v] : md.labels()) (*out->mutable_labels())[k] = v;
  for (const auto& [k, v] : md.annotations()) (*out->mutable_annotations())[k] = v;
}

Result<Metadata> decode_metadata(const cosi::resource::Metadata& in) {
  Metadata md(in.namespace_(), in.type(), in.id());
  const std::string where = md.describe();
  auto version = parse_version(in.version().empty() ? "undefined" : in.version());
  if (!version) {
    return Error(ErrorKind::kInvalidArgument, where + ": metadata.version \"" + in.version() + "\" is not a version");
  }
  md.set_version(*version);
  auto phase = parse_phase(in.phase().empty() ? "running" : in.phase());
  if (!phase) {
    return Error(ErrorKind::kInvalidArgument,
                 where + ": metadata.phase \"" + in.phase() + "\" is not running or tearingDown");
  }
  md.set_phase(*phase);
  md.set_owner(in.owner());
  if (in.has_created()) md.set_created(decode_time(in.created()));
  if (in.has_updated()) md.set_updated(decode_time(in.updated()));
  for (const auto& f : in.finalizers()) md.mutable_finalizers().add(f);
  for (const auto& [k, v] : in.labels()) md.mutable_labels().set(k, v);
  for (const auto& [k, v] : in.annotations()) md.mutable_annotations().set(k, v);
  return md;
}

Status encode_resource(const Resource& resource, cosi::resource::Resource* out) {
  encode_metadata(resource.metadata(), out->mutable_metadata());
  auto* spec = out->mutable_spec();  // set even when empty: clients require a spec
  const Resource::EncodedSpec& encoded = resource.encoded_spec();
  if (!encoded.encodable) {
    return Error(ErrorKind::kInvalidArgument,
                 resource.metadata().describe() + ": its spec type has no protobuf encoding");
  }
  spec->set_proto_spec(encoded.proto);
  spec->set_yaml_spec(encoded.yaml);
  return {};
}

Result<MutableResourcePtr> decode_resource(const cosi::resource::Resource& in, const ResourceTypes& types) {
  auto md = decode_metadata(in.metadata());
  if (!md.ok()) return md.error();
  return types.decode(std::move(*md), in.spec().proto_spec(), in.spec().yaml_spec());
}

}  // namespace cosi
