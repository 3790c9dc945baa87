//===- FunctionBodies.cpp - ONNX function bodies and their expansion ------===//
//
// Schema function bodies come from libonnx; context-dependent ones are built
// for the node at hand. Expansion binds the body's formal inputs, outputs
// and attribute references to the call and renames the body's own values so
// that they cannot clash with the graph's or another expansion's.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/FunctionBodies.h"

#include <set>

#include <onnx/defs/schema.h>

#include "frontend/onnx/OpsetPolicy.h"

#include <exception>

using namespace tessel;
using namespace tessel::onnx_import;

bool onnx_import::schemaFunctionBody(
    const onnx::NodeProto &node, const std::string &domain, int64_t opset,
    const std::vector<onnx::TypeProto> &inputTypes, FunctionBody &body,
    std::string &error, const ConstantInputs &constants) {
  // Ops newer than libonnx first: its registry has no body for them (at
  // most an older schema without one, as PRelu-16).
  if (newerFunctionBody(node, domain, opset, inputTypes, body, error,
                        constants) ||
      !error.empty())
    return error.empty();
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), static_cast<int>(opset), domain);
  if (!schema || schema->Deprecated())
    return false;
  if (!schema->HasFunction() && !schema->HasContextDependentFunction())
    return false;
  // libonnx's body is the op's as of its schema: refused where the op has
  // changed since (ONNX 1.22) at or below the model's opset.
  if (std::optional<int64_t> newer = unreviewedNewerVersion(
          domain, node.op_type(), schema->SinceVersion(), opset)) {
    error = std::string(kUnsupportedPrefix) + "version " +
            std::to_string(*newer) + " of the op (opset " +
            std::to_string(opset) + ") is newer than the schemas of Debian's "
            "libonnx, whose function body is that of version " +
            std::to_string(schema->SinceVersion());
    return false;
  }
  body = FunctionBody();
  body.sinceVersion = schema->SinceVersion();
  if (schema->HasFunction()) {
    body.function = *schema->GetFunction();
  } else if (schema->HasContextDependentFunction()) {
    onnx::FunctionBodyBuildContextImpl context(node, inputTypes);
    try {
      if (!schema->BuildContextDependentFunction(context, body.function)) {
        error = "ONNX cannot build its function body for this node";
        return false;
      }
    } catch (const std::exception &e) {
      error = std::string("building its function body failed: ") + e.what();
      return false;
    }
  } else {
    return false;
  }
  for (const auto &[name, attr] : schema->attributes())
    if (attr.default_value.type() != onnx::AttributeProto::UNDEFINED)
      body.attributeDefaults[name] = attr.default_value;
  return true;
}

/// Renames the values a subgraph (an If branch, a Loop or Scan body, at any
/// depth) takes from the function's scope with `bind`, as the function's
/// own nodes are; its own values (inputs, initializers, node outputs)
/// shadow the function's and keep their names.
static void bindCapturedValues(
    onnx::GraphProto &graph, std::set<std::string> shadowed,
    const std::function<std::string(const std::string &)> &bind) {
  for (const onnx::ValueInfoProto &in : graph.input())
    shadowed.insert(in.name());
  for (const onnx::TensorProto &init : graph.initializer())
    shadowed.insert(init.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &out : node.output())
      shadowed.insert(out);
  auto rebind = [&](std::string *name) {
    if (!name->empty() && !shadowed.count(*name))
      *name = bind(*name);
  };
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (std::string &in : *node.mutable_input())
      rebind(&in);
    for (onnx::AttributeProto &a : *node.mutable_attribute()) {
      if (a.has_g())
        bindCapturedValues(*a.mutable_g(), shadowed, bind);
      for (onnx::GraphProto &g : *a.mutable_graphs())
        bindCapturedValues(g, shadowed, bind);
    }
  }
  // A graph output may be a captured value itself.
  for (onnx::ValueInfoProto &out : *graph.mutable_output())
    rebind(out.mutable_name());
}

std::vector<onnx::NodeProto> onnx_import::expandFunctionBody(
    const onnx::NodeProto &call, const FunctionBody &body,
    const std::function<std::string(const std::string &)> &freshName) {
  const onnx::FunctionProto &fn = body.function;
  std::map<std::string, std::string> rename;
  for (int i = 0; i < fn.input_size(); ++i)
    rename[fn.input(i)] = i < call.input_size() ? call.input(i) : "";
  for (int i = 0; i < fn.output_size(); ++i)
    rename[fn.output(i)] = i < call.output_size() && !call.output(i).empty()
                               ? call.output(i)
                               : freshName(fn.output(i));
  auto bind = [&](const std::string &name) -> std::string {
    if (name.empty())
      return name;
    auto it = rename.find(name);
    if (it == rename.end())
      it = rename.emplace(name, freshName(name)).first;
    return it->second;
  };
  std::map<std::string, const onnx::AttributeProto *> callAttrs;
  for (const onnx::AttributeProto &a : call.attribute())
    callAttrs[a.name()] = &a;

  std::vector<onnx::NodeProto> nodes;
  for (const onnx::NodeProto &inner : fn.node()) {
    onnx::NodeProto node = inner;
    node.clear_input();
    node.clear_output();
    node.clear_attribute();
    for (const std::string &in : inner.input())
      node.add_input(bind(in));
    for (const std::string &out : inner.output())
      node.add_output(bind(out));
    for (const onnx::AttributeProto &a : inner.attribute()) {
      if (a.ref_attr_name().empty()) {
        onnx::AttributeProto *copy = node.add_attribute();
        *copy = a;
        if (copy->has_g())
          bindCapturedValues(*copy->mutable_g(), {}, bind);
        for (onnx::GraphProto &g : *copy->mutable_graphs())
          bindCapturedValues(g, {}, bind);
        continue;
      }
      const onnx::AttributeProto *value = nullptr;
      auto given = callAttrs.find(a.ref_attr_name());
      if (given != callAttrs.end()) {
        value = given->second;
      } else {
        auto dflt = body.attributeDefaults.find(a.ref_attr_name());
        if (dflt != body.attributeDefaults.end())
          value = &dflt->second;
      }
      if (!value)
        continue; // neither set nor defaulted: the inner op's default holds
      onnx::AttributeProto *bound = node.add_attribute();
      *bound = *value;
      bound->set_name(a.name());
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}
