// RUN: nart-opt %s | filecheck %s
// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// Views of a byte buffer print as upstream mlir-opt prints them (the upstream round-trip test
// feeds this file through mlir-opt 22 too).

// CHECK-LABEL: func.func @views
func.func @views(%b: memref<2048xi8>, %o: index, %n: index) {
  // CHECK-NEXT: %{{.*}} = memref.view %arg0[%arg1][] : memref<2048xi8> to memref<64x4xf32>
  %0 = memref.view %b[%o][] : memref<2048xi8> to memref<64x4xf32>
  // CHECK-NEXT: %{{.*}} = memref.view %arg0[%arg1][%arg2] : memref<2048xi8> to memref<?x4xi32>
  %1 = memref.view %b[%o][%n] : memref<2048xi8> to memref<?x4xi32>
  return
}
