#include "runtime/controller/dependency_graph.h"

#include "runtime/base/quoted.h"

#include <algorithm>
#include <map>

namespace cosi {
namespace {

Error invalid(const std::string& message) { return Error(ErrorKind::kInvalidArgument, message); }

std::string describe(const Input& i) {
  return i.type.str() + "(" + i.ns.str() + (i.id ? "/" + *i.id : "") + ")";
}

DependencyEdgeType edge_type(InputKind kind) {
  switch (kind) {
    case InputKind::kStrong: return DependencyEdgeType::kInputStrong;
    case InputKind::kWeak: return DependencyEdgeType::kInputWeak;
    case InputKind::kDestroyReady: return DependencyEdgeType::kInputDestroyReady;
  }
  return DependencyEdgeType::kInputWeak;
}

}  // namespace

Status DependencyGraph::check_inputs(const std::string& controller, const std::vector<Input>& inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].ns.empty() || inputs[i].type.empty()) {
      return invalid("controller \"" + controller + "\": an input needs a namespace and a type");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (inputs[i].ns == inputs[j].ns && inputs[i].type == inputs[j].type &&
          inputs[i].id == inputs[j].id) {
        return invalid("controller \"" + controller + "\" declares input " + describe(inputs[i]) +
                       " twice");
      }
    }
  }
  return {};
}

Status DependencyGraph::add(const std::string& controller, const std::vector<Input>& inputs,
                            const std::vector<Output>& outputs) {
  if (controller.empty()) return invalid("a controller needs a name");
  for (const auto& n : nodes_) {
    if (n.name == controller) return invalid("controller name \"" + controller + "\" is already taken");
  }
  if (auto s = check_inputs(controller, inputs); !s.ok()) return s;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Output& out = outputs[i];
    if (out.type.empty()) return invalid("controller \"" + controller + "\": an output needs a type");
    for (std::size_t j = 0; j < i; ++j) {
      if (outputs[j].type == out.type) {
        return invalid("controller \"" + controller + "\" declares output " + out.type.str() + " twice");
      }
    }
    for (const auto& n : nodes_) {
      for (const auto& theirs : n.outputs) {
        if (theirs.type != out.type) continue;
        if (theirs.kind == OutputKind::kExclusive || out.kind == OutputKind::kExclusive) {
          bool both_exclusive = theirs.kind == out.kind;
          return invalid("controller \"" + controller + "\" cannot write " + out.type.str() +
                         (both_exclusive ? ": controller \"" + n.name + "\" already owns it exclusively"
                                         : ": controller \"" + n.name + "\" writes it " +
                                               (theirs.kind == OutputKind::kExclusive ? "exclusively" : "shared") +
                                               "; exclusive and shared writers cannot mix"));
        }
      }
    }
  }
  nodes_.push_back(Node{controller, inputs, outputs});
  return {};
}

Status DependencyGraph::replace_inputs(const std::string& controller, const std::vector<Input>& inputs) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const Node& n) { return n.name == controller; });
  if (it == nodes_.end()) return Error(ErrorKind::kNotFound, "no controller \"" + controller + "\"");
  if (auto s = check_inputs(controller, inputs); !s.ok()) return s;
  it->inputs = inputs;
  return {};
}

std::vector<DependencyEdge> DependencyGraph::edges() const {
  std::vector<DependencyEdge> out;
  for (const auto& n : nodes_) {
    for (const auto& i : n.inputs) {
      out.push_back({n.name, edge_type(i.kind), i.ns.str(), i.type.str(), i.id});
    }
    for (const auto& o : n.outputs) {
      out.push_back({n.name,
                     o.kind == OutputKind::kExclusive ? DependencyEdgeType::kOutputExclusive
                                                      : DependencyEdgeType::kOutputShared,
                     "", o.type.str(), std::nullopt});
    }
  }
  return out;
}

std::string DependencyGraph::dot() const { return dependencies_dot(edges()); }

std::string dependencies_dot(const std::vector<DependencyEdge>& all) {
  std::map<std::string, std::string> controllers, types;  // name -> node id
  auto id_of = [](std::map<std::string, std::string>& m, const std::string& name, char prefix) {
    auto [it, added] = m.emplace(name, "");
    if (added) it->second = prefix + std::to_string(m.size());
    return it->second;
  };
  std::string edges;
  for (const auto& e : all) {
    if (e.type == DependencyEdgeType::kInputDestroyReady) continue;
    std::string c = id_of(controllers, e.controller, 'c');
    std::string t = id_of(types, e.resource_type, 'r');
    switch (e.type) {
      case DependencyEdgeType::kOutputExclusive:
        edges += "  " + c + " -> " + t + " [style=bold];\n";
        break;
      case DependencyEdgeType::kOutputShared:
        edges += "  " + c + " -> " + t + " [style=solid];\n";
        break;
      case DependencyEdgeType::kInputStrong:
        edges += "  " + t + " -> " + c + " [style=solid" +
                 (e.resource_id ? ", label=" + quoted(*e.resource_id) : "") + "];\n";
        break;
      case DependencyEdgeType::kInputWeak:
        edges += "  " + t + " -> " + c + " [style=dotted" +
                 (e.resource_id ? ", label=" + quoted(*e.resource_id) : "") + "];\n";
        break;
      case DependencyEdgeType::kInputDestroyReady:
        break;
    }
  }
  std::string out = "digraph {\n  rankdir=LR;\n";
  for (const auto& [name, id] : controllers) out += "  " + id + " [label=" + quoted(name) + ", shape=box];\n";
  for (const auto& [name, id] : types) {
    out += "  " + id + " [label=" + quoted(name) + ", shape=note, style=filled, fillcolor=azure2];\n";
  }
  return out + edges + "}\n";
}

}  // namespace cosi
