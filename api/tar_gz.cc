#include "api/tar_gz.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <ctime>

namespace cosi::api {

namespace {

constexpr size_t kBlock = 512;

// A ustar header for a regular file (mode 0600, owner root).
std::string header(const std::string& name, size_t size) {
  std::string h(kBlock, '\0');
  std::memcpy(h.data(), name.data(), std::min<size_t>(name.size(), 99));
  auto octal = [&](size_t at, size_t width, unsigned long long value) {
    std::snprintf(h.data() + at, width, "%0*llo", static_cast<int>(width - 1), value);
  };
  octal(100, 8, 0600);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, static_cast<unsigned long long>(std::time(nullptr)));
  h[156] = '0';  // a regular file
  std::memcpy(h.data() + 257, "ustar", 6);
  std::memcpy(h.data() + 263, "00", 2);
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h.data() + 148, 8, "%06o", sum);
  h[155] = ' ';
  return h;
}

Result<std::string> gunzip(std::string_view in) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return Error(ErrorKind::kInternal, "zlib: inflateInit2");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return Error(ErrorKind::kInvalidArgument, "not a gzip stream");
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return Error(ErrorKind::kInvalidArgument, "the gzip stream ends early");
    }
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

std::string tar_gz(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string tar;
  for (const auto& [name, content] : files) {
    tar += header(name, content.size());
    tar += content;
    tar.append((kBlock - content.size() % kBlock) % kBlock, '\0');
  }
  tar.append(2 * kBlock, '\0');
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, tar.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(tar.data());
  z.avail_in = static_cast<uInt>(tar.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

Result<std::map<std::string, std::string>> untar_gz(std::string_view archive) {
  auto tar = gunzip(archive);
  if (!tar.ok()) return tar.error();
  std::map<std::string, std::string> files;
  size_t at = 0;
  while (at + kBlock <= tar->size()) {
    const char* h = tar->data() + at;
    if (h[0] == '\0') break;  // the end blocks
    const std::string name(h, strnlen(h, 100));
    const size_t size = std::strtoull(std::string(h + 124, 12).c_str(), nullptr, 8);
    at += kBlock;
    if (at + size > tar->size()) return Error(ErrorKind::kInvalidArgument, "the tar archive ends inside " + name);
    if (h[156] == '0' || h[156] == '\0') files[name] = tar->substr(at, size);
    at += (size + kBlock - 1) / kBlock * kBlock;
  }
  return files;
}

}  // namespace cosi::api
