//===- FunctionBodies.h - ONNX function bodies and their expansion -*- C++ -*-===//
//
// An ONNX op without a Tessel handler may still be imported when ONNX
// defines it as a function of other ops: its schema (libonnx's
// OpSchemaRegistry, for the opset in effect) has a function body, or one
// built for the node's attributes and input types (a context-dependent
// function), or the model itself defines it (ModelProto.functions). The
// importer expands such a node into the body's nodes and imports those.
//
// Plain ONNX/protobuf code: no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_FUNCTIONBODIES_H
#define TESSEL_FRONTEND_ONNX_FUNCTIONBODIES_H

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <vector>

namespace tessel::onnx_import {

/// A function body to expand a node into, with the attribute values that
/// hold where the node sets none (the schema's defaults).
struct FunctionBody {
  onnx::FunctionProto function;
  std::map<std::string, onnx::AttributeProto> attributeDefaults;
  /// The version of the function's own domain its body is written for when
  /// the body imports no opset of it (the schema's since-version).
  int64_t sinceVersion = 0;
};

/// Looks up the ONNX schema of `node` (domain canonical, "" for ai.onnx) at
/// `opset` and fills `body` with its function body: the static one, or the
/// one built for the node and `inputTypes` (one per node input; a default
/// TypeProto where unknown). Returns false when the schema defines none or
/// the builder refuses the node; `error` then says why when there is a
/// reason beyond "no body".
/// The values of a constant input (an initializer or a Constant): `ints`
/// for an integer tensor, `floats` for a floating-point one.
struct ConstantValues {
  std::vector<int64_t> ints;
  std::vector<double> floats;
  bool isFloat = false;
};
/// What the importer knows of an input of the node beyond its type, for
/// bodies that depend on it: its values when it is a constant; for a small
/// int64 tensor (a shape), the elements it proved constant; and keys of its
/// dims and elements (SymbolicShapes), equal exactly where two extents are
/// provably equal, empty where nothing is known.
struct InputFacts {
  std::optional<ConstantValues> constant;
  std::vector<std::optional<int64_t>> knownElements;
  std::vector<std::string> elementKeys, dimKeys;
};
using ConstantInputs = std::function<InputFacts(int input)>;

bool schemaFunctionBody(const onnx::NodeProto &node, const std::string &domain,
                        int64_t opset,
                        const std::vector<onnx::TypeProto> &inputTypes,
                        FunctionBody &body, std::string &error,
                        const ConstantInputs &constants = {});

/// The body of an op ONNX defines as a function in an opset newer than
/// libonnx knows (Attention, RMSNormalization, RotaryEmbedding, Gelu, ...),
/// written in NewerFunctionBodies.cpp from the ONNX specification and built
/// for `node` at `opset`. Returns false when none is written for it;
/// `error` then says why when the node itself is refused (an attribute out
/// of range, a missing required attribute); an error that starts with
/// kUnsupportedPrefix refuses what Tessel lacks rather than an invalid node.
constexpr const char *kUnsupportedPrefix = "unsupported: ";
bool newerFunctionBody(const onnx::NodeProto &node, const std::string &domain,
                       int64_t opset,
                       const std::vector<onnx::TypeProto> &inputTypes,
                       FunctionBody &body, std::string &error,
                       const ConstantInputs &constants = {});

/// The nodes of `body` called as `call`: formal inputs and outputs become
/// the call's (an omitted optional input stays omitted), every other value
/// gets a fresh name from `freshName(name)`, attribute references
/// (ref_attr_name) take the call's attribute or the default, or vanish when
/// neither exists.
std::vector<onnx::NodeProto>
expandFunctionBody(const onnx::NodeProto &call, const FunctionBody &body,
                   const std::function<std::string(const std::string &)>
                       &freshName);

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_FUNCTIONBODIES_H
