#include "resources/secrets/certs.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstring>

#include "runtime/base/base64.h"

namespace cosi::pki {
namespace {

std::string bio_string(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

void random_serial(X509* x) {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  bytes[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(bytes, sizeof bytes, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
  BN_free(bn);
}

void set_name(X509_NAME* name, const std::string& cn, const std::vector<std::string>& orgs) {
  for (const auto& o : orgs) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  if (!cn.empty()) {
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  }
}

std::vector<std::string> name_entries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  int i = -1;
  while ((i = X509_NAME_get_index_by_NID(name, nid, i)) >= 0) {
    ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, s);
    if (len >= 0) out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(len));
    OPENSSL_free(utf8);
  }
  return out;
}

void add_ext(X509* x, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext != nullptr) {
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
}

Result<std::string> san_text(const std::vector<std::string>& ips, const std::vector<std::string>& dns) {
  std::string out;
  for (const auto& ip : ips) {
    unsigned char buf[16];
    if (inet_pton(AF_INET, ip.c_str(), buf) != 1 && inet_pton(AF_INET6, ip.c_str(), buf) != 1) {
      return Error(ErrorKind::kInvalidArgument, "\"" + ip + "\" is not an IP address");
    }
    out += (out.empty() ? "" : ",") + std::string("IP:") + ip;
  }
  for (const auto& d : dns) out += (out.empty() ? "" : ",") + std::string("DNS:") + d;
  return out;
}

void collect_sans(GENERAL_NAMES* names, std::vector<std::string>* ips, std::vector<std::string>* dns) {
  if (names == nullptr) return;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS && dns != nullptr) {
      dns->emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)),
                        static_cast<std::size_t>(ASN1_STRING_length(n->d.dNSName)));
    } else if (n->type == GEN_IPADD && ips != nullptr) {
      char buf[INET6_ADDRSTRLEN] = {};
      int len = ASN1_STRING_length(n->d.iPAddress);
      const unsigned char* data = ASN1_STRING_get0_data(n->d.iPAddress);
      inet_ntop(len == 4 ? AF_INET : AF_INET6, data, buf, sizeof buf);
      ips->emplace_back(buf);
    }
  }
  GENERAL_NAMES_free(names);
}

int sign(X509* x, EVP_PKEY* key) {
  const bool ed = EVP_PKEY_get_id(key) == EVP_PKEY_ED25519;
  return X509_sign(x, key, ed ? nullptr : EVP_sha256());
}

std::chrono::system_clock::time_point asn1_time(const ASN1_TIME* t) {
  struct tm tm {};
  ASN1_TIME_to_tm(t, &tm);
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace

void Certificate::Free::operator()(X509* x) const { X509_free(x); }
void CertificateRequest::Free::operator()(X509_REQ* r) const { X509_REQ_free(r); }

Certificate Certificate::self_signed_ca(const PrivateKey& key, std::vector<std::string> organizations,
                                        std::chrono::seconds validity) {
  X509* x = X509_new();
  X509_set_version(x, 2);
  random_serial(x);
  X509_gmtime_adj(X509_getm_notBefore(x), 0);
  X509_gmtime_adj(X509_getm_notAfter(x), static_cast<long>(validity.count()));
  X509_set_pubkey(x, key.get());
  set_name(X509_get_subject_name(x), "", organizations);
  X509_set_issuer_name(x, X509_get_subject_name(x));
  add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE");
  add_ext(x, x, NID_key_usage, "critical,digitalSignature,keyCertSign");
  add_ext(x, x, NID_ext_key_usage, "serverAuth,clientAuth");
  add_ext(x, x, NID_subject_key_identifier, "hash");
  sign(x, key.get());
  return Certificate(x);
}

Result<Certificate> Certificate::issue(const Certificate& ca, const PrivateKey& ca_key, EVP_PKEY* subject_key,
                                       const CertificateSpec& spec) {
  auto sans = san_text(spec.ips, spec.dns);
  if (!sans.ok()) return sans.error();
  X509* x = X509_new();
  X509_set_version(x, 2);
  random_serial(x);
  X509_gmtime_adj(X509_getm_notBefore(x), -static_cast<long>(spec.backdate.count()));
  X509_gmtime_adj(X509_getm_notAfter(x), static_cast<long>((spec.validity - spec.backdate).count()));
  X509_set_pubkey(x, subject_key);
  set_name(X509_get_subject_name(x), spec.common_name, spec.organizations);
  X509_set_issuer_name(x, X509_get_subject_name(ca.get()));
  add_ext(x, ca.get(), NID_key_usage, "critical,digitalSignature");
  add_ext(x, ca.get(), NID_ext_key_usage,
          spec.usage == Usage::kServer ? "serverAuth" : spec.usage == Usage::kClient ? "clientAuth" : "serverAuth,clientAuth");
  if (!sans->empty()) add_ext(x, ca.get(), NID_subject_alt_name, *sans);
  add_ext(x, ca.get(), NID_authority_key_identifier, "keyid:always");
  if (sign(x, ca_key.get()) == 0) {
    X509_free(x);
    return Error(ErrorKind::kInternal, "signing a certificate: " + openssl_error());
  }
  return Certificate(x);
}

Result<Certificate> Certificate::parse(std::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (x == nullptr) return Error(ErrorKind::kInvalidArgument, "not a PEM certificate (" + openssl_error() + ")");
  return Certificate(x);
}

std::string Certificate::pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert_.get());
  std::string out = bio_string(bio);
  BIO_free(bio);
  return out;
}

std::string Certificate::common_name() const {
  auto cn = name_entries(X509_get_subject_name(cert_.get()), NID_commonName);
  return cn.empty() ? "" : cn.front();
}

std::vector<std::string> Certificate::organizations() const {
  return name_entries(X509_get_subject_name(cert_.get()), NID_organizationName);
}

std::vector<std::string> Certificate::ips() const {
  std::vector<std::string> out;
  collect_sans(static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert_.get(), NID_subject_alt_name, nullptr, nullptr)), &out,
               nullptr);
  return out;
}

std::vector<std::string> Certificate::dns() const {
  std::vector<std::string> out;
  collect_sans(static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert_.get(), NID_subject_alt_name, nullptr, nullptr)),
               nullptr, &out);
  return out;
}

bool Certificate::matches(const PrivateKey& key) const {
  bool ok = X509_check_private_key(cert_.get(), key.get()) == 1;
  ERR_clear_error();
  return ok;
}

bool Certificate::is_ca() const { return X509_check_ca(cert_.get()) != 0; }

bool Certificate::server_auth() const { return (X509_get_extended_key_usage(cert_.get()) & XKU_SSL_SERVER) != 0; }
bool Certificate::client_auth() const { return (X509_get_extended_key_usage(cert_.get()) & XKU_SSL_CLIENT) != 0; }
bool Certificate::client_auth_only() const {
  return (X509_get_extension_flags(cert_.get()) & EXFLAG_XKUSAGE) != 0 &&
         X509_get_extended_key_usage(cert_.get()) == XKU_SSL_CLIENT;
}

std::chrono::system_clock::time_point Certificate::not_before() const {
  return asn1_time(X509_get0_notBefore(cert_.get()));
}
std::chrono::system_clock::time_point Certificate::not_after() const {
  return asn1_time(X509_get0_notAfter(cert_.get()));
}

std::string Certificate::spki_fingerprint() const {
  unsigned char* der = nullptr;
  int len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert_.get()), &der);
  unsigned char digest[32];
  unsigned int dlen = 0;
  EVP_Digest(der, static_cast<std::size_t>(len), digest, &dlen, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  return base64_encode(std::string_view(reinterpret_cast<const char*>(digest), dlen));
}

Status Certificate::verify_issued_by(const Certificate& ca, std::chrono::system_clock::time_point now) const {
  EVP_PKEY* ca_key = X509_get0_pubkey(ca.get());
  if (ca_key == nullptr || X509_verify(cert_.get(), ca_key) != 1) {
    ERR_clear_error();
    return Error(ErrorKind::kPermissionDenied, "the certificate is not signed by the expected CA");
  }
  if (now < not_before() || now > not_after()) {
    return Error(ErrorKind::kPermissionDenied, "the certificate is not valid at this time");
  }
  return {};
}

CertificateRequest CertificateRequest::create(const PrivateKey& key, const std::string& common_name,
                                              const std::vector<std::string>& ips, const std::vector<std::string>& dns) {
  X509_REQ* r = X509_REQ_new();
  X509_REQ_set_version(r, 0);
  set_name(X509_REQ_get_subject_name(r), common_name, {});
  X509_REQ_set_pubkey(r, key.get());
  auto sans = san_text(ips, dns);
  if (sans.ok() && !sans->empty()) {
    STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, sans->c_str());
    sk_X509_EXTENSION_push(exts, ext);
    X509_REQ_add_extensions(r, exts);
    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  }
  const bool ed = key.is_ed25519();
  X509_REQ_sign(r, key.get(), ed ? nullptr : EVP_sha256());
  return CertificateRequest(r);
}

Result<CertificateRequest> CertificateRequest::parse(std::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509_REQ* r = PEM_read_bio_X509_REQ(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (r == nullptr) return Error(ErrorKind::kInvalidArgument, "not a PEM certificate request (" + openssl_error() + ")");
  return CertificateRequest(r);
}

std::string CertificateRequest::pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509_REQ(bio, req_.get());
  std::string out = bio_string(bio);
  BIO_free(bio);
  return out;
}

std::string CertificateRequest::common_name() const {
  auto cn = name_entries(X509_REQ_get_subject_name(req_.get()), NID_commonName);
  return cn.empty() ? "" : cn.front();
}

namespace {

// The requested extension with this nid, decoded; null when absent.
void* requested(X509_REQ* r, int nid) {
  STACK_OF(X509_EXTENSION)* exts = X509_REQ_get_extensions(r);
  void* out = nullptr;
  if (exts != nullptr) {
    for (int i = 0; i < sk_X509_EXTENSION_num(exts); ++i) {
      X509_EXTENSION* e = sk_X509_EXTENSION_value(exts, i);
      if (OBJ_obj2nid(X509_EXTENSION_get_object(e)) == nid) {
        out = X509V3_EXT_d2i(e);
        break;
      }
    }
    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  }
  return out;
}

}  // namespace

std::vector<std::string> CertificateRequest::ips() const {
  std::vector<std::string> out;
  collect_sans(static_cast<GENERAL_NAMES*>(requested(req_.get(), NID_subject_alt_name)), &out, nullptr);
  return out;
}

std::vector<std::string> CertificateRequest::dns() const {
  std::vector<std::string> out;
  collect_sans(static_cast<GENERAL_NAMES*>(requested(req_.get(), NID_subject_alt_name)), nullptr, &out);
  return out;
}

bool CertificateRequest::asks_for_ca() const {
  auto* bc = static_cast<BASIC_CONSTRAINTS*>(requested(req_.get(), NID_basic_constraints));
  bool ca = bc != nullptr && bc->ca != 0;
  BASIC_CONSTRAINTS_free(bc);
  return ca;
}

bool CertificateRequest::asks_for_client_auth() const {
  auto* eku = static_cast<EXTENDED_KEY_USAGE*>(requested(req_.get(), NID_ext_key_usage));
  bool client = false;
  if (eku != nullptr) {
    for (int i = 0; i < sk_ASN1_OBJECT_num(eku); ++i) {
      if (OBJ_obj2nid(sk_ASN1_OBJECT_value(eku, i)) == NID_client_auth) client = true;
    }
    EXTENDED_KEY_USAGE_free(eku);
  }
  return client;
}

bool CertificateRequest::signature_valid() const {
  EVP_PKEY* key = X509_REQ_get0_pubkey(req_.get());
  bool ok = key != nullptr && X509_REQ_verify(req_.get(), key) == 1;
  ERR_clear_error();
  return ok;
}

EVP_PKEY* CertificateRequest::public_key() const { return X509_REQ_get0_pubkey(req_.get()); }

}  // namespace cosi::pki
