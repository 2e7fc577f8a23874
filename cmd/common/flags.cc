#include "cmd/common/flags.h"

namespace cosi::cmd {

void Flags::value(std::string name, char s, std::string* target, std::string help) {
  specs_.push_back({std::move(name), s, target, nullptr, nullptr, std::move(help)});
}

void Flags::list(std::string name, char s, std::vector<std::string>* target, std::string help) {
  specs_.push_back({std::move(name), s, nullptr, target, nullptr, std::move(help)});
}

void Flags::boolean(std::string name, char s, bool* target, std::string help) {
  specs_.push_back({std::move(name), s, nullptr, nullptr, target, std::move(help)});
}

void Flags::repeated(std::string name, char s, std::vector<std::string>* target, std::string help) {
  specs_.push_back({std::move(name), s, nullptr, target, nullptr, std::move(help), false});
}

const Flags::Spec* Flags::find(const std::string& name) const {
  for (const auto& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Flags::Spec* Flags::find(char short_name) const {
  for (const auto& s : specs_) {
    if (short_name != 0 && s.short_name == short_name) return &s;
  }
  return nullptr;
}

Result<std::vector<std::string>> Flags::parse(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      positional.insert(positional.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    const Spec* spec;
    std::string shown;
    std::optional<std::string> inline_value;
    if (a[1] == '-') {
      std::string name = a.substr(2);
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
      spec = find(name);
      shown = "--" + name;
    } else {
      if (a.size() != 2) return Error(ErrorKind::kInvalidArgument, "unknown flag " + a);
      spec = find(a[1]);
      shown = a;
    }
    if (spec == nullptr) return Error(ErrorKind::kInvalidArgument, "unknown flag " + shown);
    if (spec->flag != nullptr) {
      if (inline_value && *inline_value != "true" && *inline_value != "false") {
        return Error(ErrorKind::kInvalidArgument, "flag " + shown + " takes true or false, not \"" + *inline_value + "\"");
      }
      *spec->flag = !inline_value || *inline_value == "true";
      continue;
    }
    std::string v;
    if (inline_value) {
      v = *inline_value;
    } else {
      if (i + 1 >= args.size()) return Error(ErrorKind::kInvalidArgument, "flag " + shown + " needs a value");
      v = args[++i];
    }
    if (spec->value != nullptr) {
      *spec->value = v;
    } else if (!spec->split) {
      spec->list->push_back(v);
    } else {
      std::size_t start = 0;
      while (start <= v.size()) {
        auto comma = v.find(',', start);
        std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!item.empty()) spec->list->push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  }
  return positional;
}

std::string Flags::usage() const {
  std::string out;
  for (const auto& s : specs_) {
    std::string left = "  ";
    left += s.short_name != 0 ? std::string("-") + s.short_name + ", " : "    ";
    left += "--" + s.name + (s.flag ? "" : " value");
    if (left.size() < 32) left.resize(32, ' ');
    out += left + " " + s.help + "\n";
  }
  return out;
}

}  // namespace cosi::cmd
