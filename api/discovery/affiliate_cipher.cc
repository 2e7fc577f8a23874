#include "api/discovery/affiliate_cipher.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

namespace cosi::discovery {

namespace {

constexpr size_t kNonce = 12;
constexpr size_t kTag = 16;
constexpr size_t kBlock = 16;

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext new_context() { return CipherContext(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free); }

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }
unsigned char* bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

Error not_ours(const char* what) {
  return Error(ErrorKind::kInvalidArgument, std::string(what) + " is not sealed with this cluster's secret");
}

// AES-256-ECB without padding over whole blocks.
bool ecb(const std::string& key, std::string_view in, std::string& out, bool encrypt) {
  auto ctx = new_context();
  out.assign(in.size() + kBlock, '\0');
  int n = 0, tail = 0;
  if (EVP_CipherInit_ex(ctx.get(), EVP_aes_256_ecb(), nullptr, bytes(key), nullptr, encrypt ? 1 : 0) != 1) return false;
  EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
  if (EVP_CipherUpdate(ctx.get(), bytes(out), &n, bytes(in), static_cast<int>(in.size())) != 1) return false;
  if (EVP_CipherFinal_ex(ctx.get(), bytes(out) + n, &tail) != 1) return false;
  out.resize(static_cast<size_t>(n + tail));
  return true;
}

}  // namespace

Result<AffiliateCipher> AffiliateCipher::create(std::string key) {
  if (key.size() != kKeySize) {
    return Error(ErrorKind::kInvalidArgument,
                 "the cluster secret must be 32 bytes (base64 of 32 bytes), not " + std::to_string(key.size()));
  }
  return AffiliateCipher(std::move(key));
}

std::string AffiliateCipher::seal(std::string_view plain) const {
  std::string out(kNonce + plain.size() + kTag, '\0');
  RAND_bytes(bytes(out), kNonce);
  auto ctx = new_context();
  int n = 0, tail = 0;
  EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr);
  EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonce, nullptr);
  EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, bytes(key_), bytes(out));
  EVP_EncryptUpdate(ctx.get(), bytes(out) + kNonce, &n, bytes(plain), static_cast<int>(plain.size()));
  EVP_EncryptFinal_ex(ctx.get(), bytes(out) + kNonce + n, &tail);
  EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTag, bytes(out) + kNonce + plain.size());
  return out;
}

Result<std::string> AffiliateCipher::open(std::string_view sealed) const {
  if (sealed.size() < kNonce + kTag) return not_ours("the affiliate data");
  const size_t length = sealed.size() - kNonce - kTag;
  std::string out(length, '\0');
  std::string tag(sealed.substr(kNonce + length));
  auto ctx = new_context();
  int n = 0, tail = 0;
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonce, nullptr) != 1 ||
      EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, bytes(key_), bytes(sealed)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), bytes(out), &n, bytes(sealed) + kNonce, static_cast<int>(length)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTag, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), bytes(out) + n, &tail) != 1) {
    return not_ours("the affiliate data");
  }
  return out;
}

Result<std::string> AffiliateCipher::seal_endpoint(std::string_view plain) const {
  if (plain.size() > 255) return Error(ErrorKind::kInvalidArgument, "an endpoint is longer than 255 bytes");
  std::string block(1, static_cast<char>(plain.size()));
  block.append(plain);
  block.resize((block.size() + kBlock - 1) / kBlock * kBlock, '\0');
  std::string out;
  if (!ecb(key_, block, out, true)) return Error(ErrorKind::kInternal, "AES-ECB failed");
  return out;
}

Result<std::string> AffiliateCipher::open_endpoint(std::string_view sealed) const {
  std::string block;
  if (sealed.empty() || sealed.size() % kBlock != 0 || !ecb(key_, sealed, block, false)) return not_ours("an endpoint");
  const auto length = static_cast<unsigned char>(block[0]);
  if (1u + length > block.size()) return not_ours("an endpoint");
  for (size_t i = 1 + length; i < block.size(); ++i) {
    if (block[i] != '\0') return not_ours("an endpoint");
  }
  return block.substr(1, length);
}

}  // namespace cosi::discovery
