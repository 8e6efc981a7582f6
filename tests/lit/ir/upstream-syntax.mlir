// Syntax upstream's parser accepts and nart reads and prints the same way mlir-opt does:
// functions whose body writes its entry block, shaped types with blanks and scalable
// dimensions, nested modules, casts, and the default dialect of each region.
// RUN: nart-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect | nart-opt --allow-unregistered-dialect | filecheck %s
// RUN: nart-opt %s --allow-unregistered-dialect --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// Unnamed argument types, with the entry block and its arguments written in the body.
// CHECK-LABEL: func.func @entry_block(%arg0: f32, %arg1: i32) -> f32 {
// CHECK-NEXT:    return %arg0 : f32
// GENERIC-LABEL: sym_name = "entry_block"
// GENERIC-NEXT:  ^bb0(%{{.*}}: f32, %{{.*}}: i32):
func.func @entry_block(f32, i32) -> f32 {
^entry(%x: f32, %y: i32):
  return %x : f32
}

// The entry block may branch, and argument attributes stay with the signature.
// CHECK-LABEL: func.func @entry_block_branches(%arg0: i1 {foo.flag}, %arg1: f32) -> f32 {
// CHECK-NEXT:    cf.cond_br %arg0, ^bb1(%arg1 : f32), ^bb2
// CHECK-NEXT:  ^bb1(%0: f32):  // pred: ^bb0
// CHECK-NEXT:    return %0 : f32
// CHECK-NEXT:  ^bb2:  // pred: ^bb0
// CHECK-NEXT:    return %arg1 : f32
func.func @entry_block_branches(i1 {foo.flag}, f32) -> f32 {
^bb0(%c: i1, %v: f32):
  cf.cond_br %c, ^bb1(%v : f32), ^bb2
^bb1(%w: f32):
  return %w : f32
^bb2:
  return %v : f32
}

// An empty block label list is an entry block without arguments.
// CHECK-LABEL: func.func @empty_label_list() {
// CHECK-NEXT:    return
func.func @empty_label_list() {
^bb0():
  return
}

// A declaration may name its arguments: the names are dropped, the attributes kept.
// CHECK: func.func private @named_declaration(i32 {foo.arg}, f32)
func.func private @named_declaration(%a: i32 {foo.arg}, %b: f32 loc("decl.mlir":1:2))

// An explicit `public` is kept.
// CHECK: func.func public @explicitly_public() {
func.func public @explicitly_public() {
  return
}

// Blanks anywhere in a dimension list, scalable dimensions anywhere in a vector shape.
// CHECK: func.func private @shapes(vector<42xi32>, vector<4x4xf32>, tensor<4x?xf32>, tensor<*xf32>, memref<2x3xf32>, memref<*xi8>, vector<[4]xi32>, vector<2x[4]x[8]xf32>, vector<[4]xf16>, vector<f32>)
func.func private @shapes(vector<42 x i32>, vector< 4 x4 xf32>, tensor<4 x ? x f32>,
                          tensor<* x f32>, memref<2 x 3 x f32>, memref<* x i8>,
                          vector<[4]xi32>, vector<2x[4]x[ 8 ]xf32>, vector<[4] x f16>,
                          vector<f32>)

// `0x` in a shape is a zero dimension, not a hex literal; `i0` is a type.
// CHECK: func.func private @zeros(tensor<0xf32>, tensor<0x4xi8>, i0)
func.func private @zeros(tensor<0xf32>, tensor<0x4xi8>, i0)

// An integer memory space 0 is the default one, and the identity layout is dropped.
// CHECK: func.func private @memory_spaces(memref<2xi8>, memref<2xi8, 1>, memref<*xf32>)
func.func private @memory_spaces(memref<2xi8, 0>, memref<2xi8, affine_map<(d0) -> (d0)>, 1>,
                                 memref<*xf32, 0>)

// Scalable vectors in arith ops.
// CHECK-LABEL: func.func @scalable(%arg0: vector<[4]xi32>) -> vector<[4]xi1> {
// CHECK-NEXT:    %0 = arith.cmpi slt, %arg0, %arg0 : vector<[4]xi32>
// CHECK-NEXT:    %cst = arith.constant dense<1.000000e+00> : vector<[4]x[2]xf32>
func.func @scalable(%a: vector<[4] x i32>) -> vector<[4]xi1> {
  %0 = arith.cmpi slt, %a, %a : vector<[4]xi32>
  %1 = arith.constant dense<1.0> : vector<[4]x[2]xf32>
  return %0 : vector<[4]xi1>
}

// Function constants are named `%f`.
// CHECK-LABEL: func.func @function_constant() -> (() -> ()) {
// CHECK-NEXT:    %f = constant @function_constant2 : () -> ()
// CHECK-NEXT:    return %f : () -> ()
func.func @function_constant() -> (() -> ()) {
  %c = constant @function_constant2 : () -> ()
  return %c : () -> ()
}
func.func private @function_constant2()

// Nested modules print as upstream prints them; the casts of the builtin dialect have their
// custom form. `builtin` is the default dialect of modules, no dialect is the default of
// other ops' regions, so there the prefix is written.
// CHECK-LABEL: module @outer attributes {foo.x} {
// CHECK-NEXT:    module @inner {
// CHECK-NEXT:    }
// CHECK-NEXT:    module {
// CHECK-NEXT:      %0 = "foo.def"() : () -> i32
// CHECK-NEXT:      %1:2 = unrealized_conversion_cast %0 : i32 to i64, f32 {foo.cast}
// CHECK-NEXT:      %2 = unrealized_conversion_cast to i8
// CHECK-NEXT:      "foo.use"(%1#0, %1#1, %2) : (i64, f32, i8) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @in_function(%arg0: i32) {
// CHECK-NEXT:      %0 = builtin.unrealized_conversion_cast %arg0 : i32 to i64
// CHECK-NEXT:      builtin.module {
// CHECK-NEXT:        func.func private @deep()
// CHECK-NEXT:      }
// CHECK-NEXT:      "foo.region"() ({
// CHECK-NEXT:        builtin.module {
// CHECK-NEXT:        }
// CHECK-NEXT:      }) : () -> ()
// CHECK-NEXT:      return
// GENERIC-LABEL: "builtin.module"() <{sym_name = "outer"}> ({
// GENERIC:       "builtin.unrealized_conversion_cast"(%{{.*}}) {foo.cast} : (i32) -> (i64, f32)
module @outer attributes {foo.x} {
  module @inner {
  }
  module {
    %0 = "foo.def"() : () -> i32
    %1:2 = unrealized_conversion_cast %0 : i32 to i64, f32 {foo.cast}
    %2 = builtin.unrealized_conversion_cast to i8
    "foo.use"(%1#0, %1#1, %2) : (i64, f32, i8) -> ()
  }
  func.func @in_function(%a: i32) {
    %0 = builtin.unrealized_conversion_cast %a : i32 to i64
    builtin.module {
      func.func private @deep()
    }
    // A region in generic form keeps the default dialect around it when parsed.
    "foo.region"() ({
      builtin.module {
      }
    }) : () -> ()
    return
  }
}
