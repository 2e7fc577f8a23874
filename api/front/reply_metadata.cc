#include "api/front/reply_metadata.h"

#include <cstdint>

namespace cosi::api::front {

namespace {

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

bool get_varint(std::string_view& in, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    auto b = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    v |= uint64_t(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

void put_bytes(std::string& out, uint32_t field, std::string_view bytes) {
  put_varint(out, uint64_t(field) << 3 | 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}

// common.Metadata: hostname = 1, error = 2, status = 3 (google.rpc.Status: code = 1, message = 2).
std::string metadata(std::string_view hostname, const grpc::Status* status) {
  std::string md;
  put_bytes(md, 1, hostname);
  if (status != nullptr) {
    put_bytes(md, 2, status->error_message());
    std::string rpc_status;
    put_varint(rpc_status, uint64_t(1) << 3 | 0);
    put_varint(rpc_status, static_cast<uint64_t>(status->error_code()));
    put_bytes(rpc_status, 2, status->error_message());
    put_bytes(md, 3, rpc_status);
  }
  return md;
}

}  // namespace

std::optional<std::string> stamp_hostname(std::string_view reply, std::string_view hostname) {
  std::string stamp;
  put_bytes(stamp, 1, metadata(hostname, nullptr));
  std::string out;
  out.reserve(reply.size() + 32);
  while (!reply.empty()) {
    const std::string_view field_start = reply;
    uint64_t key = 0;
    if (!get_varint(reply, key)) return std::nullopt;
    const uint32_t field = static_cast<uint32_t>(key >> 3);
    switch (key & 7) {
      case 0: {
        uint64_t v;
        if (!get_varint(reply, v)) return std::nullopt;
        break;
      }
      case 1:
        if (reply.size() < 8) return std::nullopt;
        reply.remove_prefix(8);
        break;
      case 5:
        if (reply.size() < 4) return std::nullopt;
        reply.remove_prefix(4);
        break;
      case 2: {
        uint64_t len;
        if (!get_varint(reply, len) || len > reply.size()) return std::nullopt;
        std::string_view body = reply.substr(0, len);
        reply.remove_prefix(len);
        if (field == 1) {
          put_bytes(out, 1, std::string(body) + stamp);
          continue;
        }
        break;
      }
      default:
        return std::nullopt;
    }
    out.append(field_start.substr(0, field_start.size() - reply.size()));
  }
  return out;
}

std::string error_reply(std::string_view hostname, const grpc::Status& status) {
  std::string message;
  put_bytes(message, 1, metadata(hostname, &status));
  std::string out;
  put_bytes(out, 1, message);
  return out;
}

}  // namespace cosi::api::front
