// --tessel-saturate-index keeps index values within the Vulkan target's
// 32-bit index: an index constant beyond it saturates (a Slice's INT64_MIN
// end), and an i64 value becomes an index through a clamp rather than a
// truncation (INT64_MAX would be -1). Constants within range stay.
// RUN: tessel-opt %s --tessel-saturate-index | FileCheck %s

// CHECK-LABEL: func.func @bounds
// CHECK-DAG:     arith.constant -2147483648 : index
// CHECK-DAG:     arith.constant 2147483647 : index
// CHECK-DAG:     arith.constant 7 : index
// CHECK-DAG:     %[[LOW:.+]] = arith.constant -2147483648 : i64
// CHECK-DAG:     %[[HIGH:.+]] = arith.constant 2147483647 : i64
// CHECK:         %[[MAX:.+]] = arith.maxsi %arg1, %[[LOW]] : i64
// CHECK:         %[[MIN:.+]] = arith.minsi %[[MAX]], %[[HIGH]] : i64
// CHECK:         arith.index_cast %[[MIN]] : i64 to index
// CHECK:         arith.index_cast %arg2 : i32 to index
func.func @bounds(%n: index, %e: i64, %s: i32) -> (index, index, index, index, index) {
  %min = arith.constant -9223372036854775808 : index
  %max = arith.constant 9223372036854775807 : index
  %seven = arith.constant 7 : index
  %a = arith.addi %n, %min : index
  %b = arith.minsi %n, %max : index
  %c = arith.index_cast %e : i64 to index
  %d = arith.index_cast %s : i32 to index
  return %a, %b, %seven, %c, %d : index, index, index, index, index
}
