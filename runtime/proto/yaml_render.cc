#include "runtime/proto/yaml_render.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <vector>

namespace cosi {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr const char* kIndent = "    ";

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c) && c != '_') return false;
  }
  return true;
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_bin(char c) { return c == '0' || c == '1'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// What a YAML reader (yaml.v3) would take for an int: decimal, 0b, 0o / leading-0 octal, 0x.
bool reads_as_int(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) return all_of(s.substr(2), is_bin);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) return all_of(s.substr(2), is_oct);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return all_of(s.substr(2), is_hex);
  if (s.size() > 1 && s[0] == '0') return all_of(s.substr(1), is_oct);
  return all_of(s, is_dec);
}

// [-+]?(.digits | digits(.digits?)?)([eE][-+]?digits)? and the special values.
bool reads_as_float(std::string_view s) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  std::size_t i = 0, digits = 0;
  while (i < s.size() && is_dec(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_dec(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t exp = 0;
    while (i < s.size() && is_dec(s[i])) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

bool reads_as_other_type(const std::string& s) {
  if (s.size() <= 5) {
    static const char* const kWords[] = {"true", "false", "yes", "no", "on", "off", "null", "~",
                                         "True", "False", "TRUE", "FALSE", "Null", "NULL", "Yes",
                                         "No", "YES", "NO", "On", "Off", "ON", "OFF", "y", "n", "Y", "N"};
    for (const char* w : kWords) {
      if (s == w) return true;
    }
  }
  const char c = s[0];
  if (!(is_dec(c) || c == '-' || c == '+' || c == '.')) return false;  // numbers start so
  return reads_as_int(s) || reads_as_float(s);
}

std::string base64(const std::string& in) {
  static const char* kChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kChars[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kChars[(v >> 18) & 63];
    out += kChars[(v >> 12) & 63];
    out += i + 1 < in.size() ? kChars[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

struct YamlStyle::Plans {
  struct Field {
    const FieldDescriptor* descriptor;
    std::string key;
    bool omit_empty;
    const std::function<std::string(std::uint64_t)>* uint_text;        // null: a number
    const std::function<std::string(const std::string&)>* bytes_text;  // null: base64
  };
  struct Message {
    std::vector<Field> fields;
  };

  std::mutex mu;
  std::unordered_map<const Descriptor*, std::unique_ptr<Message>> messages;           // guarded by mu
  std::unordered_map<const Descriptor*, const std::function<std::string(const google::protobuf::Message&)>*>
      scalars;                                                                          // guarded by mu
  std::unordered_map<const EnumValueDescriptor*, std::string> enum_texts;             // guarded by mu
};

namespace {

class Renderer {
 public:
  explicit Renderer(const YamlStyle& style) : style_(style), plans_(*style.plans) {}

  // Every key of m at `pad`; nested blocks at pad + four spaces.
  void message_body(const Message& m, const std::string& pad, std::string& out) {
    for (const auto& field : plan(m.GetDescriptor()).fields) {
      if (field.omit_empty && empty(m, field.descriptor)) continue;
      out += pad;
      out += field.key;
      out += ':';
      field_value(m, field, pad, out);
    }
  }

 private:
  using Plans = YamlStyle::Plans;

  const Plans::Message& plan(const Descriptor* d) {
    std::lock_guard lock(plans_.mu);
    auto& slot = plans_.messages[d];
    if (!slot) {
      slot = std::make_unique<Plans::Message>();
      for (int i = 0; i < d->field_count(); ++i) {
        const FieldDescriptor* f = d->field(i);
        auto key = style_.keys.find(f->full_name());
        auto uint_text = style_.uint_text.find(f->full_name());
        auto bytes_text = style_.bytes_text.find(f->full_name());
        slot->fields.push_back({f, key != style_.keys.end() ? key->second : f->json_name(),
                                style_.omit_empty.contains(f->full_name()),
                                uint_text != style_.uint_text.end() ? &uint_text->second : nullptr,
                                bytes_text != style_.bytes_text.end() ? &bytes_text->second : nullptr});
      }
    }
    return *slot;
  }

  const std::function<std::string(const Message&)>* scalar_formatter(const Descriptor* d) {
    std::lock_guard lock(plans_.mu);
    auto [it, added] = plans_.scalars.try_emplace(d, nullptr);
    if (added) {
      auto s = style_.scalars.find(d->full_name());
      it->second = s != style_.scalars.end() ? &s->second : nullptr;
    }
    return it->second;
  }

  bool is_scalar_message(const Descriptor* d) { return scalar_formatter(d) != nullptr; }
  std::string scalar_message(const Message& m) { return (*scalar_formatter(m.GetDescriptor()))(m); }

  bool empty(const Message& m, const FieldDescriptor* f) {
    const Reflection* r = m.GetReflection();
    if (f->is_repeated()) return r->FieldSize(m, f) == 0;
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!r->HasField(m, f)) return true;
      if (is_scalar_message(f->message_type())) return scalar_message(r->GetMessage(m, f)).empty();
      return false;
    }
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING: return r->GetString(m, f).empty();
      case FieldDescriptor::CPPTYPE_BOOL: return !r->GetBool(m, f);
      case FieldDescriptor::CPPTYPE_INT32: return r->GetInt32(m, f) == 0;
      case FieldDescriptor::CPPTYPE_INT64: return r->GetInt64(m, f) == 0;
      case FieldDescriptor::CPPTYPE_UINT32: return r->GetUInt32(m, f) == 0;
      case FieldDescriptor::CPPTYPE_UINT64: return r->GetUInt64(m, f) == 0;
      case FieldDescriptor::CPPTYPE_DOUBLE: return r->GetDouble(m, f) == 0;
      case FieldDescriptor::CPPTYPE_FLOAT: return r->GetFloat(m, f) == 0;
      case FieldDescriptor::CPPTYPE_ENUM: return r->GetEnumValue(m, f) == 0;
      default: return false;
    }
  }

  const std::string& enum_text(const EnumValueDescriptor* v) {
    std::lock_guard lock(plans_.mu);
    auto [it, added] = plans_.enum_texts.try_emplace(v);
    if (added) it->second = compute_enum_text(v);
    return it->second;
  }

  std::string compute_enum_text(const EnumValueDescriptor* v) const {
    if (auto it = style_.enum_text.find(v->full_name()); it != style_.enum_text.end()) return it->second;
    const EnumDescriptor* e = v->type();
    // The longest prefix ending in '_' shared by every value name.
    std::string prefix = e->value(0)->name();
    for (int i = 1; i < e->value_count(); ++i) {
      const std::string& n = e->value(i)->name();
      std::size_t k = 0;
      while (k < prefix.size() && k < n.size() && prefix[k] == n[k]) ++k;
      prefix.resize(k);
    }
    prefix.resize(prefix.rfind('_') == std::string::npos ? 0 : prefix.rfind('_') + 1);
    std::string out;
    for (char c : v->name().substr(prefix.size())) {
      if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  }

  // The text of one non-message value (index < 0: not repeated).
  std::string scalar(const Message& m, const FieldDescriptor* f, int index, const Plans::Field* field = nullptr) {
    const Reflection* r = m.GetReflection();
    const bool rep = index >= 0;
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string s = rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
        if (f->type() == FieldDescriptor::TYPE_BYTES) {
          if (field != nullptr && field->bytes_text != nullptr) return yaml_scalar((*field->bytes_text)(s));
          return s.empty() ? "\"\"" : base64(s);
        }
        return yaml_scalar(s);
      }
      case FieldDescriptor::CPPTYPE_BOOL:
        return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
      case FieldDescriptor::CPPTYPE_INT32:
        return std::to_string(rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
      case FieldDescriptor::CPPTYPE_INT64:
        return std::to_string(rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
      case FieldDescriptor::CPPTYPE_UINT32: {
        std::uint32_t v = rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
        if (field != nullptr && field->uint_text != nullptr) return yaml_scalar((*field->uint_text)(v));
        return std::to_string(v);
      }
      case FieldDescriptor::CPPTYPE_UINT64:
        return std::to_string(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return std::to_string(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
      case FieldDescriptor::CPPTYPE_FLOAT:
        return std::to_string(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
      case FieldDescriptor::CPPTYPE_ENUM:
        return yaml_scalar(enum_text(rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f)));
      default:
        return "";
    }
  }

  void field_value(const Message& m, const Plans::Field& field, const std::string& pad, std::string& out) {
    const FieldDescriptor* f = field.descriptor;
    const Reflection* r = m.GetReflection();
    const std::string inner = pad + kIndent;
    if (f->is_map()) {
      map_value(m, f, inner, out);
      return;
    }
    if (f->is_repeated()) {
      int n = r->FieldSize(m, f);
      if (n == 0) {
        out += " []\n";
        return;
      }
      out += "\n";
      for (int i = 0; i < n; ++i) {
        if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
          out += inner + "- " + scalar(m, f, i) + "\n";
          continue;
        }
        const Message& item = r->GetRepeatedMessage(m, f, i);
        if (is_scalar_message(item.GetDescriptor())) {
          out += inner + "- " + yaml_scalar(scalar_message(item)) + "\n";
          continue;
        }
        // The item's keys line up after "- ": its first key on the dash's line.
        const std::string item_pad = inner + "  ";
        std::string body;
        message_body(item, item_pad, body);
        if (body.empty()) {
          out += inner + "- {}\n";
          continue;
        }
        out += inner + "- " + body.substr(item_pad.size());
      }
      return;
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (!r->HasField(m, f)) {
        out += " null\n";
        return;
      }
      const Message& sub = r->GetMessage(m, f);
      if (is_scalar_message(sub.GetDescriptor())) {
        std::string text = scalar_message(sub);
        out += " " + (text.empty() ? std::string("\"\"") : yaml_scalar(text)) + "\n";
        return;
      }
      std::string body;
      message_body(sub, inner, body);
      out += body.empty() ? " {}\n" : "\n" + body;
      return;
    }
    out += ' ';
    out += scalar(m, f, -1, &field);
    out += '\n';
  }

  void map_value(const Message& m, const FieldDescriptor* f, const std::string& pad, std::string& out) {
    const Reflection* r = m.GetReflection();
    const FieldDescriptor* kf = f->message_type()->map_key();
    const FieldDescriptor* vf = f->message_type()->map_value();
    std::map<std::string, std::string> entries;  // sorted by key text
    for (int i = 0; i < r->FieldSize(m, f); ++i) {
      const Message& entry = r->GetRepeatedMessage(m, f, i);
      std::string k = scalar(entry, kf, -1);
      std::string v;
      if (vf->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        std::string body;
        message_body(entry.GetReflection()->GetMessage(entry, vf), pad + kIndent, body);
        v = body.empty() ? " {}\n" : "\n" + body;
      } else {
        v = " " + scalar(entry, vf, -1) + "\n";
      }
      entries[k] = v;
    }
    if (entries.empty()) {
      out += " {}\n";
      return;
    }
    out += "\n";
    for (const auto& [k, v] : entries) out += pad + k + ":" + v;
  }

  const YamlStyle& style_;
  Plans& plans_;
};

}  // namespace

YamlStyle::YamlStyle() : plans(std::make_shared<Plans>()) {}

const YamlStyle& YamlStyle::plain() {
  static const YamlStyle* style = new YamlStyle();
  return *style;
}

std::string yaml_scalar(const std::string& s) {
  bool quote = s.empty() || reads_as_other_type(s) || s.front() == ' ' || s.back() == ' ';
  if (!quote) {
    static const std::string kIndicators = "-?:,[]{}#&*!|>'\"%@`";
    if (kIndicators.find(s.front()) != std::string::npos && !(s.front() == '-' && s.size() > 1 && s[1] != ' ')) {
      quote = true;
    }
  }
  if (!quote) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x20 || c == 0x7f) quote = true;
      if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) quote = true;
      if (s[i] == '#' && i > 0 && s[i - 1] == ' ') quote = true;
    }
  }
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string render_yaml(const google::protobuf::Message& message, const YamlStyle& style) {
  std::string out;
  Renderer(style).message_body(message, "", out);
  return out;
}

}  // namespace cosi
