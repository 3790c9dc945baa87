//===- ImportContext.h - State shared by the ONNX op importers --*- C++ -*-===//
//
// The importer walks the graph's nodes in topological order; each op handler
// (one file per op family under ops/, registered in OpRegistry.h) reads its
// node through a NodeContext: inputs as MLIR values, attributes with ONNX
// defaults, constant inputs, the opset in effect, and errors that name the
// file, node and op (for a node of an expanded function body: the node of
// the model it was expanded from).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_IMPORTCONTEXT_H
#define TESSEL_FRONTEND_ONNX_IMPORTCONTEXT_H

#include "dialects/Graph/NarrowFormats.h"
#include "dialects/Graph/TesselDialect.h"
#include "frontend/onnx/OpRegistry.h"
#include "frontend/onnx/SymbolicShapes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>

namespace tessel::onnx_import {

/// A value of the graph being built and the ONNX element type it came from
/// (signless MLIR integers lose signedness; ops that care check this).
struct GraphValue {
  mlir::Value value;
  int32_t onnxType = 0;
};

class NodeContext;

/// Whole-import state.
struct ImportContext {
  ImportContext(mlir::MLIRContext &context, std::string file)
      : builder(&context), file(std::move(file)), shapes(&context) {}

  mlir::OpBuilder builder;
  std::string file;
  /// What is known of the extents and shape values imported so far.
  SymbolicShapes shapes;
  llvm::StringMap<GraphValue> values;
  /// Imports subgraph `graph` (an If branch, a Loop body) at the builder's
  /// insertion point: its inputs are `args` (one per graph input), names it
  /// does not define are the values in scope around it, and its outputs are
  /// returned in `outputs`. Names it defines are gone afterwards. Set by the
  /// importer.
  std::function<mlir::LogicalResult(NodeContext &, const onnx::GraphProto &,
                                    llvm::ArrayRef<GraphValue>,
                                    llvm::SmallVectorImpl<GraphValue> &)>
      importSubgraph;
  /// Set when an error said that an op (or its opset) or a data type is not
  /// supported, as opposed to a model the supported ops cannot import.
  bool unsupported = false;

  /// The MLIR element type of an ONNX TensorProto.DataType, or null.
  mlir::Type elementType(int32_t onnxType);

  /// The value of an initializer or Constant (raw, typed or external data).
  /// Errors are reported at `loc`.
  mlir::FailureOr<mlir::DenseElementsAttr>
  tensorAttr(const onnx::TensorProto &tensor, mlir::Location loc);

  /// Reports "<what loc describes, else the file>: <message>".
  mlir::LogicalResult fail(mlir::Location loc, const llvm::Twine &message);

private:
  mlir::LogicalResult loadExternalData(const onnx::TensorProto &tensor,
                                       mlir::Location loc, std::string &bytes);
};

/// Reads a whole file; false when it cannot be read.
bool readWholeFile(const std::string &path, std::string &out);

/// The location of a node of the model: NameLoc(name, NameLoc(op, file)).
/// Unnamed nodes are known by their first output.
mlir::Location nodeLocation(ImportContext &ctx, const onnx::NodeProto &node);

/// One node being imported.
class NodeContext {
public:
  /// `opset` is the version of the node's domain in effect. A node of an
  /// expanded function body has the location of the model's node it came
  /// from and `expandedFrom`, the op types expanded to reach it (outermost
  /// first).
  NodeContext(ImportContext &ctx, const onnx::NodeProto &node, int64_t opset,
              mlir::Location loc,
              llvm::ArrayRef<std::string> expandedFrom = {});

  ImportContext &ctx;
  const onnx::NodeProto &node;
  /// The opset of the node's domain: the model's, or the function's.
  int64_t opset;
  mlir::Location loc;
  mlir::OpBuilder &b;
  llvm::SmallVector<std::string, 2> expandedFrom;

  /// Number of inputs, counting empty (omitted) optional ones.
  int numInputs() const { return node.input_size(); }
  /// Whether input `i` is present (not omitted, not an empty name).
  bool hasInput(int i) const;
  /// Input `i`; an error was reported and null returned when it is missing.
  mlir::Value input(int i);
  /// Ranked tensor type of input `i` (input(i) must be valid).
  mlir::RankedTensorType inputType(int i);
  /// ONNX element type of input `i`.
  int32_t inputOnnxType(int i);
  /// The value of input `i` when it is a constant (initializer or Constant).
  std::optional<mlir::DenseElementsAttr> constantInput(int i);
  /// The integer values of constant input `i`, or an error.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(int i, llvm::StringRef what);

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t dflt) const;
  float getFloat(llvm::StringRef name, float dflt) const;
  std::string getString(llvm::StringRef name, llvm::StringRef dflt) const;
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name) const;

  /// Makes a negative `axis` count from the end of a rank-`rank` tensor; an
  /// error outside [-rank, rank).
  mlir::LogicalResult normalizeAxis(int64_t &axis, int64_t rank);

  /// Binds output `i` to `value` (with the ONNX type of input 0 unless given).
  void setOutput(int i, mlir::Value value, int32_t onnxType = -1);

  /// Reports "<file>: node '<name>' (<op>): <message>" and returns failure;
  /// inside a function body, "<file>: node '<name>' (<op>): in its function
  /// body, op '<inner op>': <message>".
  mlir::LogicalResult error(const llvm::Twine &message);
  /// Reports that this node's op is unsupported ("unsupported op 'Foo'";
  /// inside a function body, "in its function body, op 'Foo' is not
  /// supported"), or with `versionProblem`, that its opset is, and marks the
  /// import as failed for want of support.
  mlir::LogicalResult unsupported(const llvm::Twine &versionProblem = "");
};

/// The product of `dims`, or ShapedType::kDynamic if any is dynamic.
int64_t productOfDims(llvm::ArrayRef<int64_t> dims);

/// Whether an ONNX element type is an unsigned integer.
bool isUnsigned(int32_t onnxType);

/// numpy broadcast of two shapes (dynamic dims stay dynamic), or failure.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Pads of a window op from `pads`/`auto_pad` (ONNX semantics), in ONNX
/// order (begins then ends), for the given spatial input extents.
mlir::FailureOr<llvm::SmallVector<int64_t>>
windowPads(NodeContext &n, llvm::ArrayRef<int64_t> inSpatial,
           llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
           llvm::ArrayRef<int64_t> dilations);

/// For a node whose op ONNX requires to index in range (Gather,
/// GatherElements, GatherND, ScatterElements, Scatter, ScatterND): adds the
/// run-time check that it does (IndexRange.cpp). Does nothing for other ops.
mlir::LogicalResult checkIndexRange(NodeContext &n);

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_IMPORTCONTEXT_H
