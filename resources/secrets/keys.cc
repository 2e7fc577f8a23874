#include "resources/secrets/keys.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdlib>

namespace cosi::pki {
namespace {

std::string bio_string(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

[[noreturn]] void abort_with(const char* what) {
  std::fprintf(stderr, "cosi: %s: %s\n", what, openssl_error().c_str());
  std::abort();
}

}  // namespace

void PrivateKey::Free::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }

std::string openssl_error() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

PrivateKey PrivateKey::ed25519() {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  if (k == nullptr) abort_with("generating an Ed25519 key");
  return PrivateKey(k);
}

PrivateKey PrivateKey::ecdsa_p256() {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (k == nullptr) abort_with("generating a P-256 key");
  return PrivateKey(k);
}

PrivateKey PrivateKey::rsa(int bits) {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits));
  if (k == nullptr) abort_with("generating an RSA key");
  return PrivateKey(k);
}

Result<PrivateKey> PrivateKey::parse(std::string_view pem) {
  std::string text(pem);
  // Talos labels PKCS#8 Ed25519 keys "ED25519 PRIVATE KEY"; the bytes are plain PKCS#8.
  for (const char* marker : {"-----BEGIN ED25519 PRIVATE KEY-----", "-----END ED25519 PRIVATE KEY-----"}) {
    auto at = text.find(marker);
    if (at != std::string::npos) {
      std::string fixed = std::string(marker).replace(std::string(marker).find("ED25519 "), 8, "");
      text.replace(at, std::string(marker).size(), fixed);
    }
  }
  BIO* bio = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (k == nullptr) {
    return Error(ErrorKind::kInvalidArgument, "not a PEM private key (" + openssl_error() + ")");
  }
  return PrivateKey(k);
}

bool PrivateKey::is_ed25519() const { return EVP_PKEY_get_id(key_.get()) == EVP_PKEY_ED25519; }

std::string PrivateKey::pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  int ok;
  switch (EVP_PKEY_get_id(key_.get())) {
    case EVP_PKEY_EC:
      ok = PEM_write_bio_PrivateKey_traditional(bio, key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
      break;
    case EVP_PKEY_RSA:
      ok = PEM_write_bio_PrivateKey_traditional(bio, key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
      break;
    default:
      ok = PEM_write_bio_PrivateKey(bio, key_.get(), nullptr, nullptr, 0, nullptr, nullptr);
  }
  std::string out = ok ? bio_string(bio) : std::string();
  BIO_free(bio);
  return out;
}

std::string PrivateKey::public_pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  std::string out = PEM_write_bio_PUBKEY(bio, key_.get()) ? bio_string(bio) : std::string();
  BIO_free(bio);
  return out;
}

}  // namespace cosi::pki
