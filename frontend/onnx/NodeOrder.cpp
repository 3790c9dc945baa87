//===- NodeOrder.cpp - Topological order of ONNX nodes --------------------===//
//
// Kahn's algorithm, always taking the ready node listed first, so a model
// in order imports exactly as listed. A cycle is reported at a node on it,
// found by walking back from a node that never became ready.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/NodeOrder.h"

#include "llvm/ADT/StringMap.h"

#include <queue>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

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
  for (size_t i = 0; i < count; ++i)
    for (const std::string &in : nodes[i]->input()) {
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
    for (const std::string &in : nodes[at]->input()) {
      auto it = in.empty() ? producer.end() : producer.find(in);
      if (it != producer.end() && waiting[it->second]) {
        at = it->second;
        through = in;
        break;
      }
    }
  }
  // `at` is on the cycle; name the input through which it depends on itself.
  for (const std::string &in : nodes[at]->input()) {
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
