// RUN: nart-opt %s --mlir-elide-elementsattrs-if-larger=2 | filecheck %s --check-prefix=ELIDE
// RUN: nart-opt %s --mlir-elide-elementsattrs-if-larger=2 --mlir-print-op-generic | filecheck %s --check-prefix=ELIDEGEN
// RUN: nart-opt %s --mlir-print-debuginfo | filecheck %s --check-prefix=DEBUG
// RUN: nart-opt %s | filecheck %s --check-prefix=PLAIN

// Dense attributes with more elements than the limit print as an elided resource;
// splats count as one element.
// ELIDE-LABEL: func.func @consts()
// ELIDE-NEXT: arith.constant dense_resource<__elided__> : tensor<3xi32>
// ELIDE-NEXT: arith.constant dense<[1, 2]> : tensor<2xi32>
// ELIDE-NEXT: arith.constant dense<1.000000e+00> : tensor<4xf32>
// ELIDEGEN: "arith.constant"() <{value = dense_resource<__elided__> : tensor<3xi32>}> : () -> tensor<3xi32>
// ELIDEGEN-NEXT: "arith.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>

// Locations print only with --mlir-print-debuginfo.
// DEBUG-LABEL: func.func @consts()
// DEBUG-NEXT: arith.constant dense<[1, 2, 3]> : tensor<3xi32> loc("consts.mlir":1:2)
// DEBUG: return {{.*}} loc({{.*}}printing.mlir":[[@LINE+8]]:3)
// DEBUG-NEXT: } loc({{.*}}printing.mlir":[[@LINE+3]]:1)
// PLAIN-NOT: loc(
// PLAIN: arith.constant dense<[1, 2, 3]> : tensor<3xi32>{{$}}
func.func @consts() -> (tensor<3xi32>, tensor<2xi32>, tensor<4xf32>) {
  %0 = arith.constant dense<[1, 2, 3]> : tensor<3xi32> loc("consts.mlir":1:2)
  %1 = arith.constant dense<[1, 2]> : tensor<2xi32>
  %2 = arith.constant dense<1.0> : tensor<4xf32>
  return %0, %1, %2 : tensor<3xi32>, tensor<2xi32>, tensor<4xf32>
}
