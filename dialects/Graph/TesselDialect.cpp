//===- TesselDialect.cpp - Tessel graph dialect registration ---------------===//
//
// Registers the graph dialect's ops and materializes folded constants.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/TesselDialect.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace tessel;

#include "dialects/Graph/TesselDialect.cpp.inc"

void TesselDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Graph/TesselOps.cpp.inc"
      >();
}

Operation *TesselDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

Location tessel::onnxNodeLoc(MLIRContext *ctx, StringRef file, StringRef node,
                             StringRef opType) {
  Location fileLoc = FileLineColLoc::get(ctx, file, 0, 0);
  return NameLoc::get(StringAttr::get(ctx, node),
                      NameLoc::get(StringAttr::get(ctx, opType), fileLoc));
}

/// The first part of a fused location (folding fuses them), else `loc`.
static Location primary(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return fused.getLocations()[0];
  return loc;
}

void tessel::onnxNodeOf(Location loc, std::string &node, std::string &opType) {
  node.clear();
  opType.clear();
  // Several nodes (a dispatch region): "a+b" of "Add+Relu", each node once
  // (the ops that one node lowers to, a quantized Conv's cast, Conv,
  // scale and bias, keep its location).
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && fused.getMetadata() ==
                   StringAttr::get(loc.getContext(), kDispatchRegionLoc)) {
    llvm::StringSet<> seen;
    for (Location part : fused.getLocations()) {
      std::string n, o;
      onnxNodeOf(part, n, o);
      if (n.empty() || !seen.insert(n).second)
        continue;
      node += (node.empty() ? "" : "+") + n;
      opType += (opType.empty() ? "" : "+") + o;
    }
    return;
  }
  if (auto name = dyn_cast<NameLoc>(primary(loc))) {
    node = name.getName().str();
    if (auto inner = dyn_cast<NameLoc>(name.getChildLoc()))
      opType = inner.getName().str();
  }
}

std::string tessel::describeLoc(Location loc) {
  std::string node, op;
  onnxNodeOf(loc, node, op);
  // The file is the innermost location under the names.
  Location inner = primary(loc);
  while (auto name = dyn_cast<NameLoc>(inner))
    inner = name.getChildLoc();
  std::string out;
  if (auto fileLoc = dyn_cast<FileLineColLoc>(inner))
    out = fileLoc.getFilename().str();
  if (!node.empty())
    out += (out.empty() ? "" : ": ") + ("node '" + node + "'") +
           (op.empty() ? "" : " (" + op + ")");
  return out;
}
