//===- NodeOrder.cpp - Topological order of ONNX nodes --------------------===//
//
// Kahn's algorithm, always taking the ready node listed first, so a model
// in order imports exactly as listed. A cycle is reported at a node on it,
// found by walking back from a node that never became ready.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/NodeOrder.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <queue>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

/// Adds to `names` what the subgraphs of `node` (If branches, Loop and Scan
/// bodies, recursively) read from around them: names none of their inputs,
/// initializers or nodes define.
static void outerNames(const onnx::NodeProto &node,
                       std::vector<std::string> &names) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    std::vector<const onnx::GraphProto *> graphs;
    if (attr.has_g())
      graphs.push_back(&attr.g());
    for (const onnx::GraphProto &g : attr.graphs())
      graphs.push_back(&g);
    for (const onnx::GraphProto *g : graphs) {
      llvm::StringSet<> inner;
      for (const onnx::ValueInfoProto &in : g->input())
        inner.insert(in.name());
      for (const onnx::TensorProto &t : g->initializer())
        inner.insert(t.name());
      for (const onnx::NodeProto &n : g->node())
        for (const std::string &out : n.output())
          inner.insert(out);
      for (const onnx::NodeProto &n : g->node()) {
        std::vector<std::string> used(n.input().begin(), n.input().end());
        outerNames(n, used);
        for (std::string &name : used)
          if (!name.empty() && !inner.contains(name))
            names.push_back(std::move(name));
      }
    }
  }
}

/// What `node` reads: its inputs and what its subgraphs read from around.
static std::vector<std::string> dependencies(const onnx::NodeProto &node) {
  std::vector<std::string> names(node.input().begin(), node.input().end());
  outerNames(node, names);
  return names;
}

FailureOr<SmallVector<const onnx::NodeProto *>>
onnx_import::sortTopologically(
    ArrayRef<const onnx::NodeProto *> nodes,
    function_ref<bool(StringRef)> defined,
    function_ref<NodeContext(const onnx::NodeProto &)> context) {
  size_t count = nodes.size();
  llvm::StringMap<size_t> producer;
  for (size_t i = 0; i < count; ++i)
    for (const std::string &out : nodes[i]->output()) {
      if (out.empty())
        continue;
      auto [it, inserted] = producer.try_emplace(out, i);
      if (!inserted || defined(out))
        return context(*nodes[i]).error(
            "output '" + out + "' is already defined" +
            (inserted ? std::string(" by the graph")
                      : " by node '" + nodes[it->second]->name() + "' (" +
                            nodes[it->second]->op_type() + ")"));
    }

  // Edges producer -> consumer, and how many producers each node waits for.
  std::vector<SmallVector<size_t, 2>> consumers(count);
  std::vector<size_t> waiting(count, 0);
  std::vector<std::vector<std::string>> reads(count);
  for (size_t i = 0; i < count; ++i)
    reads[i] = dependencies(*nodes[i]);
  for (size_t i = 0; i < count; ++i)
    for (const std::string &in : reads[i]) {
      if (in.empty())
        continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        if (defined(in))
          continue;
        return context(*nodes[i]).error(
            "input '" + in +
            "' is not defined (no node computes it and it is not a graph "
            "input or initializer)");
      }
      consumers[it->second].push_back(i);
      ++waiting[i];
    }

  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < count; ++i)
    if (!waiting[i])
      ready.push(i);
  SmallVector<const onnx::NodeProto *> sorted;
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    sorted.push_back(nodes[i]);
    for (size_t c : consumers[i])
      if (--waiting[c] == 0)
        ready.push(c);
  }
  if (sorted.size() == count)
    return sorted;

  // Walk back along inputs whose producers never ran until a node repeats:
  // that node is on a cycle.
  size_t at = 0;
  while (!waiting[at])
    ++at;
  std::vector<bool> seen(count, false);
  std::string through;
  while (!seen[at]) {
    seen[at] = true;
    for (const std::string &in : reads[at]) {
      auto it = in.empty() ? producer.end() : producer.find(in);
      if (it != producer.end() && waiting[it->second]) {
        at = it->second;
        through = in;
        break;
      }
    }
  }
  // `at` is on the cycle; name the input through which it depends on itself.
  for (const std::string &in : reads[at]) {
    auto it = in.empty() ? producer.end() : producer.find(in);
    if (it != producer.end() && waiting[it->second]) {
      through = in;
      break;
    }
  }
  return context(*nodes[at]).error(
      "the graph has a cycle: input '" + through +
      "' depends on this node's own output");
}
