// DependencyGraph: who reads and writes which resource types, checked as controllers are added
// and exported as edges (inspect.InspectService's numbering) or as DOT in the Talos style:
// controllers are boxes, resource types notes; an exclusive output is bold, a shared one
// solid; a strong input solid, a weak one dotted (labelled with the id when it names one);
// destroy-ready inputs are left out.
//
//   DependencyGraph graph;
//   Status s = graph.add("EtcdMemberController", inputs, outputs);  // refuses conflicts
//   std::string dot = graph.dot();
//
// Refused, with the names involved: an empty or duplicate controller name, a second exclusive
// writer of a type, exclusive and shared writers of one type, the same input twice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/result.h"
#include "runtime/controller/controller.h"

namespace cosi {

enum class DependencyEdgeType {
  kOutputExclusive = 0,
  kInputStrong = 1,
  kInputWeak = 2,
  kOutputShared = 3,
  kInputDestroyReady = 4,
};

struct DependencyEdge {
  std::string controller;
  DependencyEdgeType type;
  std::string resource_namespace;  // empty for outputs
  std::string resource_type;
  std::optional<std::string> resource_id;

  friend bool operator==(const DependencyEdge&, const DependencyEdge&) = default;
};

// Edges as DOT in the Talos style (what DependencyGraph::dot() and `cosictl inspect
// dependencies` print).
std::string dependencies_dot(const std::vector<DependencyEdge>& edges);

class DependencyGraph {
 public:
  Status add(const std::string& controller, const std::vector<Input>& inputs,
             const std::vector<Output>& outputs);
  // Replaces a registered controller's inputs (same checks).
  Status replace_inputs(const std::string& controller, const std::vector<Input>& inputs);

  std::vector<DependencyEdge> edges() const;
  std::string dot() const;

 private:
  struct Node {
    std::string name;
    std::vector<Input> inputs;
    std::vector<Output> outputs;
  };
  static Status check_inputs(const std::string& controller, const std::vector<Input>& inputs);

  std::vector<Node> nodes_;
};

}  // namespace cosi
