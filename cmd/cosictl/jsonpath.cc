#include "cmd/cosictl/jsonpath.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "cmd/cosictl/yaml_json.h"

namespace cosi::cosictl {
namespace {

struct Step {
  std::string key;     // field name; empty for a bare index step
  bool all = false;    // [*]
  int index = -1;      // [N]
  bool slice = false;  // [A:B], either end optional ([:] is every element)
  int from = 0;
  std::optional<int> to;
};

Result<std::vector<Step>> parse(const std::string& expression) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorKind::kInvalidArgument, "print column \"" + expression + "\": " + why);
  };
  if (expression.size() < 3 || expression.front() != '{' || expression.back() != '}') return bad("expected {.path}");
  std::string path = expression.substr(1, expression.size() - 2);
  std::vector<Step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] != '.') return bad("expected . at position " + std::to_string(i));
    ++i;
    Step step;
    while (i < path.size() && path[i] != '.' && path[i] != '[') step.key += path[i++];
    if (i < path.size() && path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string::npos) return bad("unclosed [");
      std::string inside = path.substr(i + 1, close - i - 1);
      if (inside == "*") {
        step.all = true;
      } else if (auto colon = inside.find(':'); colon != std::string::npos) {
        step.slice = true;
        try {
          if (colon > 0) step.from = std::stoi(inside.substr(0, colon));
          if (colon + 1 < inside.size()) step.to = std::stoi(inside.substr(colon + 1));
        } catch (...) {
          return bad("slice \"" + inside + "\" is not A:B with whole numbers");
        }
        if (step.from < 0 || (step.to && *step.to < 0)) return bad("slice \"" + inside + "\": negative ends are not supported");
      } else {
        try {
          step.index = std::stoi(inside);
        } catch (...) {
          return bad("index \"" + inside + "\" is not a number or *");
        }
      }
      i = close + 1;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

Result<std::string> eval_jsonpath(const std::string& expression, const YAML::Node& root) {
  auto steps = parse(expression);
  if (!steps.ok()) return steps.error();
  std::vector<YAML::Node> current{root};
  for (const auto& step : *steps) {
    std::vector<YAML::Node> next;
    for (const auto& node : current) {
      if (!step.key.empty() && (!node.IsMap() || !node[step.key])) continue;  // missing keys allowed
      // Constructed, never assigned: assigning a YAML::Node writes into the node it refers to.
      const YAML::Node value = step.key.empty() ? node : node[step.key];
      if (step.all) {
        if (value.IsSequence()) {
          for (const auto& item : value) next.push_back(item);
        }
      } else if (step.slice) {
        if (value.IsSequence()) {
          const int end = std::min<int>(static_cast<int>(value.size()), step.to.value_or(static_cast<int>(value.size())));
          for (int k = step.from; k < end; ++k) next.push_back(value[k]);
        }
      } else if (step.index >= 0) {
        if (value.IsSequence() && static_cast<std::size_t>(step.index) < value.size()) next.push_back(value[step.index]);
      } else {
        next.push_back(value);
      }
    }
    current = std::move(next);
  }
  std::string out;
  for (std::size_t i = 0; i < current.size(); ++i) {
    if (i) out += " ";
    const auto& n = current[i];
    out += (n.IsSequence() || n.IsMap()) ? to_json(n) : scalar_text(n);
  }
  return out;
}

}  // namespace cosi::cosictl
