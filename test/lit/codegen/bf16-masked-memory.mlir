// --tessel-bf16-masked-memory moves bf16 vectors through masked loads and
// stores as i16 lanes (x86 would scalarize them through f32 and call
// compiler-rt's __truncsfbf2); other element types stay as they are.
// RUN: tessel-opt %s --tessel-bf16-masked-memory | FileCheck %s

// CHECK-LABEL: llvm.func @masked_bf16
// CHECK-SAME:    (%[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<8xi1>, %[[V:.+]]: vector<8xbf16>)
// CHECK:         %[[PASS:.+]] = llvm.bitcast %[[V]] : vector<8xbf16> to vector<8xi16>
// CHECK:         %[[L:.+]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi16>) -> vector<8xi16>
// The bitcasts back and forth between the two fold away.
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.intr.masked.store %[[L]], %[[P]], %[[M]] {alignment = 2 : i32} : vector<8xi16>, vector<8xi1> into !llvm.ptr
llvm.func @masked_bf16(%p: !llvm.ptr, %m: vector<8xi1>, %v: vector<8xbf16>) {
  %l = llvm.intr.masked.load %p, %m, %v {alignment = 2 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xbf16>) -> vector<8xbf16>
  llvm.intr.masked.store %l, %p, %m {alignment = 2 : i32} : vector<8xbf16>, vector<8xi1> into !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @masked_f16
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.intr.masked.store %{{.+}} : vector<8xf16>, vector<8xi1> into !llvm.ptr
llvm.func @masked_f16(%p: !llvm.ptr, %m: vector<8xi1>, %v: vector<8xf16>) {
  llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32} : vector<8xf16>, vector<8xi1> into !llvm.ptr
  llvm.return
}
