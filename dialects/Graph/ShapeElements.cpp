//===- ShapeElements.cpp - The values of shape tensors, as index values ---===//

#include "dialects/Graph/ShapeElements.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace tessel;

namespace {

using Elements = SmallVector<Value>;

std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (!matchPattern(v, m_ConstantInt(&c)))
    return std::nullopt;
  return c.getSExtValue();
}

/// The elements of `v` when each is a constant: an integer constant of
/// any width (int32 Gather indices too), or elements the caller knows.
std::optional<SmallVector<int64_t>>
constantElements(Value v, const ShapeElementSource &source) {
  if (std::optional<SmallVector<int64_t>> c = constantIntValues(v))
    return c;
  std::optional<Elements> e = source.elements(v);
  if (!e)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (Value x : *e) {
    std::optional<int64_t> c = constantOf(x);
    if (!c)
      return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

enum class Arith { Add, Sub, Mul, Max, Min, Div };

/// `x op y` of two constants, or nullopt when it overflows or divides by 0.
std::optional<int64_t> evaluate(Arith kind, int64_t x, int64_t y) {
  int64_t r;
  switch (kind) {
  case Arith::Add:
    return __builtin_add_overflow(x, y, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  case Arith::Sub:
    return __builtin_sub_overflow(x, y, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  case Arith::Mul:
    return __builtin_mul_overflow(x, y, &r) ? std::nullopt
                                            : std::optional<int64_t>(r);
  case Arith::Max:
    return std::max(x, y);
  case Arith::Min:
    return std::min(x, y);
  case Arith::Div:
    if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1))
      return std::nullopt;
    return x / y; // truncating, as ONNX's integer Div
  }
  return std::nullopt;
}

/// ONNX's truncating division from floor division: trunc = floor + 1 where
/// the signs differ and the division is inexact, built from comparisons,
/// min and max (all the plan's shape program has).
Value truncatingFromFloor(OpBuilder &b, Location loc, Value x, Value y) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto negative = [&](Value v) {
    Value c = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, v,
                                            index(0));
    return b.createOrFold<arith::IndexCastUIOp>(loc, b.getIndexType(), c);
  };
  Value q = b.createOrFold<arith::FloorDivSIOp>(loc, x, y);
  Value r = b.createOrFold<arith::SubIOp>(
      loc, x, b.createOrFold<arith::MulIOp>(loc, q, y));
  Value absR = b.createOrFold<arith::MaxSIOp>(
      loc, r, b.createOrFold<arith::SubIOp>(loc, index(0), r));
  Value inexact = b.createOrFold<arith::MinSIOp>(loc, absR, index(1));
  Value nx = negative(x), ny = negative(y);
  Value differ = b.createOrFold<arith::SubIOp>(
      loc, b.createOrFold<arith::AddIOp>(loc, nx, ny),
      b.createOrFold<arith::MulIOp>(
          loc, index(2), b.createOrFold<arith::MulIOp>(loc, nx, ny)));
  return b.createOrFold<arith::AddIOp>(
      loc, q, b.createOrFold<arith::MulIOp>(loc, differ, inexact));
}

std::optional<Elements> binary(OpBuilder &b, Operation *op, Arith kind,
                               const ShapeElementSource &source) {
  std::optional<Elements> xs = source.elements(op->getOperand(0));
  std::optional<Elements> ys = source.elements(op->getOperand(1));
  int64_t n = cast<RankedTensorType>(op->getResult(0).getType()).getNumElements();
  if (!xs || !ys || (int64_t(xs->size()) != n && xs->size() != 1) ||
      (int64_t(ys->size()) != n && ys->size() != 1))
    return std::nullopt;
  Location loc = op->getLoc();
  Elements out;
  for (int64_t i = 0; i < n; ++i) {
    Value x = (*xs)[xs->size() == 1 ? 0 : i];
    Value y = (*ys)[ys->size() == 1 ? 0 : i];
    std::optional<int64_t> cx = constantOf(x), cy = constantOf(y);
    if (cx && cy) {
      std::optional<int64_t> r = evaluate(kind, *cx, *cy);
      if (!r)
        return std::nullopt; // the kernel's wrapping, or an error, not ours
      out.push_back(arith::ConstantIndexOp::create(b, loc, *r));
      continue;
    }
    switch (kind) {
    case Arith::Add:
      out.push_back(b.createOrFold<arith::AddIOp>(loc, x, y));
      break;
    case Arith::Sub:
      out.push_back(b.createOrFold<arith::SubIOp>(loc, x, y));
      break;
    case Arith::Mul:
      out.push_back(b.createOrFold<arith::MulIOp>(loc, x, y));
      break;
    case Arith::Max:
      out.push_back(b.createOrFold<arith::MaxSIOp>(loc, x, y));
      break;
    case Arith::Min:
      out.push_back(b.createOrFold<arith::MinSIOp>(loc, x, y));
      break;
    case Arith::Div:
      out.push_back(source.floorDivisionOnly
                        ? truncatingFromFloor(b, loc, x, y)
                        : b.createOrFold<arith::DivSIOp>(loc, x, y));
      break;
    }
  }
  return out;
}

} // namespace

bool tessel::carriesShapeElements(Operation *op) {
  return isa<ShapeOp, SizeOp, ConcatOp, ReshapeOp, SqueezeOp, UnsqueezeOp,
             CastOp, GatherOp, SliceOp, AddOp, SubOp, MulOp, MaxOp, MinOp,
             DivOp>(op);
}

std::optional<SmallVector<Value>>
tessel::evaluateShapeElements(OpBuilder &b, Operation *op,
                              const ShapeElementSource &source) {
  if (op->getNumResults() != 1 || !carriesShapeElements(op))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isInteger(64))
    return std::nullopt;
  int64_t count = type.getNumElements();
  Location loc = op->getLoc();
  auto rank1 = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank() == 1;
  };

  if (auto shape = dyn_cast<ShapeOp>(op)) {
    std::optional<Elements> dims = source.dims(shape.getInput());
    if (!dims)
      return std::nullopt;
    return Elements(dims->begin() + shape.getStart(),
                    dims->begin() + shape.getEnd());
  }
  if (auto size = dyn_cast<SizeOp>(op)) {
    std::optional<Elements> dims = source.dims(size.getInput());
    if (!dims)
      return std::nullopt;
    Value n = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value d : *dims)
      n = b.createOrFold<arith::MulIOp>(loc, n, d);
    return Elements{n};
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    if (type.getRank() != 1)
      return std::nullopt;
    Elements out;
    for (Value input : concat.getInputs()) {
      std::optional<Elements> e = source.elements(input);
      if (!e)
        return std::nullopt;
      llvm::append_range(out, *e);
    }
    return out;
  }
  if (isa<ReshapeOp, SqueezeOp, UnsqueezeOp, CastOp>(op)) {
    // The same elements in the same order. A Reshape to a run-time target
    // only when the target is known to be the result's own shape (else the
    // plan checks it); a Cast only of int64.
    Value input = op->getOperand(0);
    if (auto cast_ = dyn_cast<CastOp>(op);
        cast_ && (!cast<RankedTensorType>(input.getType())
                       .getElementType()
                       .isInteger(64) ||
                  cast_.getInputUnsigned() || cast_.getResultUnsigned()))
      return std::nullopt;
    if (auto reshape = dyn_cast<ReshapeOp>(op); reshape && reshape.getShape()) {
      std::optional<SmallVector<int64_t>> target =
          constantElements(reshape.getShape(), source);
      if (!target || ArrayRef<int64_t>(*target) != type.getShape())
        return std::nullopt;
    }
    std::optional<Elements> e = source.elements(input);
    if (!e || int64_t(e->size()) != count)
      return std::nullopt;
    return e;
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    std::optional<Elements> data = source.elements(gather.getData());
    std::optional<SmallVector<int64_t>> indices =
        constantElements(gather.getIndices(), source);
    if (!data || !indices || !rank1(gather.getData()))
      return std::nullopt;
    int64_t n = data->size();
    Elements out;
    for (int64_t k : *indices) {
      if (k < -n || k >= n)
        return std::nullopt; // the kernel's clamping and the plan's check
      out.push_back((*data)[k < 0 ? k + n : k]);
    }
    return out;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    std::optional<Elements> data = source.elements(slice.getInput());
    std::optional<SmallVector<int64_t>> starts =
        constantElements(slice.getStarts(), source);
    std::optional<SmallVector<int64_t>> ends =
        constantElements(slice.getEnds(), source);
    if (!data || !starts || !ends || !rank1(slice.getInput()) ||
        starts->size() != 1 || ends->size() != 1)
      return std::nullopt;
    int64_t step = slice.getSteps()[0];
    auto [first, n] = sliceRange(data->size(), (*starts)[0], (*ends)[0], step);
    if (n != count)
      return std::nullopt;
    Elements out;
    for (int64_t i = 0; i < n; ++i)
      out.push_back((*data)[first + i * step]);
    return out;
  }
  if (isa<AddOp>(op))
    return binary(b, op, Arith::Add, source);
  if (isa<SubOp>(op))
    return binary(b, op, Arith::Sub, source);
  if (isa<MulOp>(op))
    return binary(b, op, Arith::Mul, source);
  if (auto max = dyn_cast<MaxOp>(op); max && !max.getIsUnsigned())
    return binary(b, op, Arith::Max, source);
  if (auto min = dyn_cast<MinOp>(op); min && !min.getIsUnsigned())
    return binary(b, op, Arith::Min, source);
  if (auto div = dyn_cast<DivOp>(op); div && !div.getIsUnsigned())
    return binary(b, op, Arith::Div, source);
  return std::nullopt;
}
