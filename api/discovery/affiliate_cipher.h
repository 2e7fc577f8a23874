// The discovery service only ever sees ciphertext: an affiliate's data is sealed with
// AES-256-GCM (nonce(12) ‖ ciphertext ‖ tag(16), no AAD) and each endpoint with AES-256-ECB
// (1-byte length ‖ Endpoint bytes, zero-padded to 16, deterministic so the service can
// deduplicate), both under the cluster secret (shared/PROTOCOL.md §8).
//
//   auto cipher = AffiliateCipher::create(base64_decode(cluster_secret));
//   std::string wire = cipher->seal(affiliate.SerializeAsString());
//   auto plain = cipher->open(wire);   // kInvalidArgument when sealed under another key
#pragma once

#include <string>
#include <string_view>

#include "runtime/base/result.h"

namespace cosi::discovery {

class AffiliateCipher {
 public:
  static constexpr size_t kKeySize = 32;

  // kInvalidArgument unless `key` is 32 bytes.
  static Result<AffiliateCipher> create(std::string key);

  std::string seal(std::string_view plain) const;
  Result<std::string> open(std::string_view sealed) const;

  // Endpoints: at most 255 bytes each.
  Result<std::string> seal_endpoint(std::string_view plain) const;
  Result<std::string> open_endpoint(std::string_view sealed) const;

 private:
  explicit AffiliateCipher(std::string key) : key_(std::move(key)) {}
  std::string key_;
};

}  // namespace cosi::discovery
