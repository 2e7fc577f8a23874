#include "resources/config/yaml_reader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace cosi::config {

namespace {

// Sees only where each document starts: a document that starts where the previous one did
// consumed nothing, and the parser is stuck on a token it cannot place.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (seen_ && mark.pos == last_.pos) throw YAML::ParserException(mark, "unexpected ','");
    seen_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool seen_ = false;
  YAML::Mark last_;
};

// The length of the valid UTF-8 sequence at the start of `s`, or 0; its code point in `code`.
size_t utf8_sequence(std::string_view s, uint32_t& code) {
  const auto c = static_cast<unsigned char>(s[0]);
  const size_t length = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
  if (length == 0 || s.size() < length) return 0;
  code = length == 1 ? c : c & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) {
    const auto cc = static_cast<unsigned char>(s[k]);
    if ((cc & 0xc0) != 0x80) return 0;
    code = (code << 6) | (cc & 0x3f);
  }
  if ((length == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) || (length == 4 && (code < 0x10000 || code > 0x10ffff))) {
    return 0;
  }
  return length;
}

// YAML's printable characters (c-printable): tab, line breaks, and no other control code.
bool printable(uint32_t code) {
  return code == 0x9 || code == 0xa || code == 0xd || (code >= 0x20 && code <= 0x7e) || code == 0x85 ||
         (code >= 0xa0 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}

// YAML is printable Unicode. yaml-cpp keeps invalid bytes as they are and its writer turns
// each into U+FFFD, and it reads control characters (NUL among them) into values it then
// writes as something else: either would change a value between reading and writing back.
void check_utf8(const std::string& text) {
  YAML::Mark mark;
  for (size_t i = 0; i < text.size();) {
    uint32_t code = 0;
    const size_t n = utf8_sequence(std::string_view(text).substr(i), code);
    if (n == 0) {
      mark.pos = static_cast<int>(i);
      throw YAML::ParserException(mark, "not UTF-8 (byte " + std::to_string(i) + ")");
    }
    // A lone carriage return is a line break to YAML, but yaml-cpp keeps it inside the value
    // and writes it back raw, which then reads as a break: refused (CR LF is fine).
    if (code == 0xd && (i + 1 == text.size() || text[i + 1] != '\n')) {
      mark.pos = static_cast<int>(i);
      throw YAML::ParserException(mark, "a carriage return without a line feed (byte " + std::to_string(i) +
                                            "); end lines with LF or CR LF");
    }
    if (!printable(code)) {
      mark.pos = static_cast<int>(i);
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", code);
      throw YAML::ParserException(mark, std::string("a control character (") + hex + ", byte " + std::to_string(i) +
                                            "); YAML allows none but tab and line breaks");
    }
    if (text[i] == '\n') {
      ++mark.line;
      mark.column = 0;
    } else {
      ++mark.column;
    }
    i += n;
  }
}

void check(const std::string& text) {
  check_utf8(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (parser.HandleNextDocument(starts)) {
  }
}

}  // namespace

std::vector<YAML::Node> load_yaml_documents(std::string_view text) {
  std::string owned(text);
  check(owned);
  return YAML::LoadAll(owned);
}

YAML::Node load_yaml_document(std::string_view text) {
  std::string owned(text);
  check(owned);
  return YAML::Load(owned);
}

}  // namespace cosi::config
