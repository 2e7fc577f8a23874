#include "runtime/plugin/abi_support.h"

namespace cosi::plugin {
namespace {

void put(std::string& out, std::string_view s) {
  auto n = static_cast<std::uint32_t>(s.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out.append(s);
}

bool take(std::string_view& in, std::string& out) {
  if (in.size() < 4) return false;
  std::uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[static_cast<std::size_t>(i)])) << (8 * i);
  in.remove_prefix(4);
  if (in.size() < n) return false;
  out.assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

}  // namespace

std::string encode_keys(const std::vector<Pointer>& keys) {
  std::string out;
  for (const auto& k : keys) {
    put(out, k.ns.view());
    put(out, k.type.view());
    put(out, k.id);
  }
  return out;
}

Result<std::vector<Pointer>> decode_keys(std::string_view bytes) {
  std::vector<Pointer> out;
  while (!bytes.empty()) {
    std::string ns, type, id;
    if (!take(bytes, ns) || !take(bytes, type) || !take(bytes, id)) {
      return Error(ErrorKind::kInvalidArgument, "plugin returned malformed keys");
    }
    out.push_back({Atom(ns), Atom(type), std::move(id)});
  }
  return out;
}

}  // namespace cosi::plugin
