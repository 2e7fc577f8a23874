#include "cmd/machined/node_identity.h"

#include <openssl/rand.h>
#include <yaml-cpp/yaml.h>

#include "cmd/common/files.h"
#include "resources/config/yaml_reader.h"

namespace cosi::machined {

namespace {

// 32 random bytes in base62, as Talos writes node ids.
std::string new_node_id() {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  unsigned char bytes[32];
  RAND_bytes(bytes, sizeof bytes);
  std::vector<unsigned char> n(bytes, bytes + sizeof bytes);
  std::string out;
  while (!n.empty()) {
    unsigned remainder = 0;
    std::vector<unsigned char> quotient;
    for (unsigned char b : n) {
      unsigned acc = remainder * 256 + b;
      if (!quotient.empty() || acc / 62 != 0) quotient.push_back(static_cast<unsigned char>(acc / 62));
      remainder = acc % 62;
    }
    out.insert(out.begin(), kAlphabet[remainder]);
    n = std::move(quotient);
  }
  return out;
}

}  // namespace

Result<std::string> load_or_create_node_id(const std::string& state_dir) {
  const std::string path = state_dir + "/node-identity.yaml";
  auto text = cmd::read_file(path);
  if (text.ok()) {
    std::string id;
    try {
      YAML::Node doc = config::load_yaml_document(*text);
      if (doc.IsMap() && doc["nodeId"] && doc["nodeId"].IsScalar()) id = doc["nodeId"].Scalar();
    } catch (const YAML::Exception&) {
    }
    if (id.empty()) return Error(ErrorKind::kInvalidArgument, path + ": no nodeId (remove the file to make a new identity)");
    return id;
  }
  if (!text.error().is(ErrorKind::kNotFound)) return text.error();
  std::string id = new_node_id();
  if (auto s = cmd::write_file_atomically(path, "nodeId: " + id + "\n", 0600); !s.ok()) return s.error();
  return id;
}

}  // namespace cosi::machined
