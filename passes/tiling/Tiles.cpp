//===- Tiles.cpp - Arithmetic shared by the tilings -----------------------===//

#include "passes/tiling/Tiles.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"

#include <functional>
#include <limits>

using namespace mlir;

std::optional<SmallVector<int64_t>> tessel::linearForm(AffineExpr expr,
                                                       unsigned numLoops) {
  SmallVector<int64_t> coefficients(numLoops, 0);
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr e,
                                                     int64_t scale) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      coefficients[d.getPosition()] += scale;
      return true;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return false;
    if (bin.getKind() == AffineExprKind::Add)
      return add(bin.getLHS(), scale) && add(bin.getRHS(), scale);
    if (bin.getKind() != AffineExprKind::Mul)
      return false;
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return add(bin.getLHS(), scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return add(bin.getRHS(), scale * c.getValue());
    return false;
  };
  if (!add(expr, 1))
    return std::nullopt;
  return coefficients;
}

int64_t tessel::workgroupTempBytes(int64_t unitBytes, ArrayRef<int64_t> loops,
                                   ArrayRef<int64_t> tiles,
                                   ArrayRef<int64_t> ranges) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t bytes = unitBytes;
  for (int64_t d : loops) {
    int64_t t = tiles[d] != 0 ? tiles[d] : ranges[d];
    bytes = ShapedType::isDynamic(t) || (t > 0 && bytes > kMax / t)
                ? kMax
                : bytes * t;
  }
  return bytes;
}
