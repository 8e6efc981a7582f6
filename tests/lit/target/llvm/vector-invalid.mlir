// RUN: not nart-translate --mlir-to-llvmir %s 2>&1 | filecheck %s

// n-D vectors have no LLVM type, and contractions no translation; each is reported at its
// location.
func.func @f(%m: memref<4x8xf32>, %a: vector<4xf32>, %b: vector<8xf32>, %x: vector<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %p = vector.outerproduct %a, %b : vector<4xf32>, vector<8xf32>
  %w = vector.transfer_read %m[%c0, %c0], %pad : memref<4x8xf32>, vector<4x8xf32>
  %z = vector.contract {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>} %a, %a, %pad : vector<4xf32>, vector<4xf32> into f32
  return
}
// CHECK: vector-invalid.mlir:5:1: error: 'func.func' op cannot be translated to LLVM IR: type 'vector<4x8xf32>' has no LLVM IR equivalent
// CHECK: vector-invalid.mlir:8:8: error: 'vector.outerproduct' op cannot be translated to LLVM IR: type 'vector<4x8xf32>' has no LLVM IR equivalent
// CHECK: vector-invalid.mlir:9:8: error: 'vector.transfer_read' op cannot be translated to LLVM IR: type 'vector<4x8xf32>' has no LLVM IR equivalent
// CHECK: vector-invalid.mlir:9:8: error: 'vector.transfer_read' op cannot be translated to LLVM IR: only transfers of 1-D vectors along one memref dimension are supported
// CHECK: vector-invalid.mlir:10:8: error: 'vector.contract' op has no translation to LLVM IR
// CHECK-NOT: error
