//===- MatrixBodies.cpp - Det as an ONNX body ------------------------------===//
//
// Det (11-22): the determinant of each [n, n] matrix of X [..., n, n], by
// Gaussian elimination with partial pivoting (ONNX Runtime's LU does the
// same), unrolled over the n columns, which must be static. Step k picks
// the row at or below k with the largest |A[i, k]|, swaps it into row k
// (flipping the sign), and subtracts multiples of row k from the rows
// below; the determinant is the sign times the product of the diagonal.
// A zero pivot leaves its column as it is (the product is then 0). The
// elimination runs in f64: a determinant cancels, and an ill-conditioned
// matrix's loses in f32 what its condition number costs (5e-4 relative on
// a random 4 x 4), where f64 keeps it to the input's rounding.
// See BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

bool buildDet(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  int64_t n = rank >= 2 ? c.extent(0, rank - 1) : -1;
  if (rank < 2 || n < 1 || c.extent(0, rank - 2) != n) {
    error = "X must be [..., n, n] with n static";
    return false;
  }
  if (!isFloat(c.elementType(0))) {
    error = "X must be a float tensor";
    return false;
  }
  b.Const("Rows", [&] {
     std::vector<int64_t> r;
     for (int64_t i = 0; i < n; ++i)
       r.push_back(i);
     return r;
   }())
      .Const("LastAxis", std::vector<int64_t>{-1})
      .Const("SecondLast", std::vector<int64_t>{-2})
      .Const("ZeroF", 0.0f)
      .Const("OneF", 1.0f)
      .Const("MinusOneF", -1.0f);
  b.Add(R"(
    XShape = Shape (X)
    Zero = Cast <to = 11> (ZeroF)
    One = Cast <to = 11> (OneF)
    MinusOne = Cast <to = 11> (MinusOneF)
    A0 = Cast <to = 11> (X)
    Sign0 = Identity (One)
  )");
  for (int64_t k = 0; k < n; ++k) {
    std::string s = std::to_string(k), t = std::to_string(k + 1);
    std::string a = "A" + s;
    b.Const("K" + s, k);
    // The pivot row: the largest |A[i, k]| for i >= k.
    text(b, "Col" + s + " = Gather <axis = -1> (" + a + ", K" + s + ")\nAbs" +
                s + " = Abs (Col" + s + ")\nBelow" + s +
                " = GreaterOrEqual (Rows, K" + s + ")\nCand" + s +
                " = Where (Below" + s + ", Abs" + s + ", MinusOne)\nPiv" + s +
                " = ArgMax <axis = -1, keepdims = 1> (Cand" + s + ")\n" +
                // Swap rows k and Piv: row i reads row perm(i).
                "IsK" + s + " = Equal (Rows, K" + s + ")\nIsPiv" + s +
                " = Equal (Rows, Piv" + s + ")\nOther" + s + " = Where (IsPiv" +
                s + ", K" + s + ", Rows)\nPerm" + s + " = Where (IsK" + s +
                ", Piv" + s + ", Other" + s + ")\nPermU" + s +
                " = Unsqueeze (Perm" + s + ", LastAxis)\nPermE" + s +
                " = Expand (PermU" + s + ", XShape)\nSw" + s +
                " = GatherElements <axis = -2> (" + a + ", PermE" + s +
                ")\nMoved" + s + " = Equal (Piv" + s + ", K" + s +
                ")\nFlip" + s + " = Where (Moved" + s + ", One, MinusOne)\nFlipS" +
                s + " = Squeeze (Flip" + s + ", LastAxis)\nSign" + t +
                " = Mul (Sign" + s + ", FlipS" + s + ")\n" +
                // Eliminate below row k.
                "PRow" + s + " = Gather <axis = -2> (Sw" + s + ", K" + s +
                ")\nPivot" + s + " = Gather <axis = -1> (PRow" + s + ", K" + s +
                ")\nPivotU" + s + " = Unsqueeze (Pivot" + s +
                ", LastAxis)\nColk" + s + " = Gather <axis = -1> (Sw" + s +
                ", K" + s + ")\nIsZero" + s + " = Equal (PivotU" + s +
                ", Zero)\nNonZero" + s + " = Not (IsZero" + s + ")\nSafe" + s +
                " = Where (NonZero" + s + ", PivotU" + s + ", One)\nRatio" + s +
                " = Div (Colk" + s + ", Safe" + s + ")\nLower" + s +
                " = Greater (Rows, K" + s + ")\nUse" + s + " = And (Lower" + s +
                ", NonZero" + s + ")\nFactor" + s + " = Where (Use" + s +
                ", Ratio" + s + ", Zero)\nFactorU" + s + " = Unsqueeze (Factor" +
                s + ", LastAxis)\nPRowU" + s + " = Unsqueeze (PRow" + s +
                ", SecondLast)\nUpdate" + s + " = Mul (FactorU" + s + ", PRowU" +
                s + ")\nA" + t + " = Sub (Sw" + s + ", Update" + s + ")");
  }
  std::string last = "A" + std::to_string(n);
  b.Const("Axis1", std::vector<int64_t>{1});
  b.Add("RowsCol = Unsqueeze (Rows, Axis1)\nIsDiag = Equal (RowsCol, Rows)");
  text(b, "Diag0 = Where (IsDiag, " + last + ", Zero)\nDiag = ReduceSum <keepdims = 0> "
              "(Diag0, LastAxis)\nProduct = ReduceProd <keepdims = 0> (Diag, "
              "LastAxis)\nYD = Mul (Product, Sign" + std::to_string(n) + ")\n"
              "Y = CastLike (YD, X)");
  return true;
}

} // namespace

void bodies::addMatrixBodies(std::vector<NewerOp> &ops) {
  ops.push_back({"Det", 11, 0, {"X"}, {"Y"}, buildDet});
}
