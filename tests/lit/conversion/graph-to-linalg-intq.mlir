// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-graph-to-linalg))' | filecheck %s

// Unsigned tensors lower as signless ones, the signature included; Div divides unsigned, a
// divisor of 0 replaced by 1 so that the code never traps.
// CHECK-LABEL: func.func @unsigned_div(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8>
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i8
// CHECK-NEXT: %[[S:.*]] = arith.select %[[Z]], %{{.*}}, %[[B]] : i8
// CHECK-NEXT: arith.divui %{{.*}}, %[[S]] : i8
// CHECK-NOT: ui8
// CHECK-NOT: unrealized_conversion_cast
func.func @unsigned_div(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = "graph.Div"(%a, %b) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @unsigned_mod(%arg0: tensor<4xi16>, %arg1: tensor<4xi16>) -> tensor<4xi16>
// CHECK: arith.remui %{{.*}}, %{{.*}} : i16
// CHECK-NOT: arith.remsi
func.func @unsigned_mod(%a: tensor<4xui16>, %b: tensor<4xui16>) -> tensor<4xui16> {
  %0 = "graph.Mod"(%a, %b) : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  return %0 : tensor<4xui16>
}

// -----

// CHECK-LABEL: func.func @unsigned_compare
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i32
func.func @unsigned_compare(%a: tensor<4xui32>, %b: tensor<4xui32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = "graph.Less"(%a, %b) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  %1 = "graph.GreaterOrEqual"(%a, %b) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @unsigned_max_min_clip(%arg0: tensor<4xi64>, %arg1: tensor<4xi64>, %arg2: tensor<i64>) -> tensor<4xi64>
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i64
// CHECK: arith.minui %{{.*}}, %{{.*}} : i64
// Clip with a lower bound only.
// CHECK: ins(%{{.*}}, %arg2 : tensor<4xi64>, tensor<i64>)
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.minui
func.func @unsigned_max_min_clip(%a: tensor<4xui64>, %b: tensor<4xui64>, %lo: tensor<ui64>) -> tensor<4xui64> {
  %n = "graph.none"() : () -> none
  %0 = "graph.Max"(%a, %b) : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %1 = "graph.Min"(%0, %b) : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %2 = "graph.Clip"(%1, %lo, %n) : (tensor<4xui64>, tensor<ui64>, none) -> tensor<4xui64>
  return %2 : tensor<4xui64>
}

// -----

// CHECK-LABEL: func.func @unsigned_casts(%arg0: tensor<4xi8>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi16>, tensor<4xi32>)
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// A float becomes a narrow integer through i64, truncated (wrapping as the interpreter does;
// see graph-to-linalg-floats.mlir for the whole conversion).
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i16
// CHECK: arith.extui %{{.*}} : i8 to i32
func.func @unsigned_casts(%a: tensor<4xui8>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xui16>, tensor<4xi32>) {
  %0 = "graph.Cast"(%a) <{to = 1 : i64}> : (tensor<4xui8>) -> tensor<4xf32>
  %1 = "graph.Cast"(%f) <{to = 4 : i64}> : (tensor<4xf32>) -> tensor<4xui16>
  %2 = "graph.Cast"(%a) <{to = 6 : i64}> : (tensor<4xui8>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xui16>, tensor<4xi32>
}

// -----

// A constant's elements keep their bits (200 is -56 as a signless i8); MaxPool starts from 0,
// the smallest unsigned value, and compares unsigned.
// CHECK-LABEL: func.func @unsigned_constant_and_max_pool(%arg0: tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
// CHECK: arith.constant dense<-56> : tensor<1x1x4x4xi8>
// CHECK: arith.addi %{{.*}}, %{{.*}} : i8
// CHECK: %[[LOW:.*]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[LOW]] : i8)
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: %[[GT:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
// CHECK-NEXT: arith.select %[[GT]], %{{.*}}, %{{.*}} : i8
func.func @unsigned_constant_and_max_pool(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %c = "graph.constant"() <{value = dense<200> : tensor<1x1x4x4xui8>}> : () -> tensor<1x1x4x4xui8>
  %0 = "graph.Add"(%x, %c) : (tensor<1x1x4x4xui8>, tensor<1x1x4x4xui8>) -> tensor<1x1x4x4xui8>
  %1, %i = "graph.MaxPool"(%0) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x1x4x4xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>)
  return %1 : tensor<1x1x2x2xui8>
}

// -----

// Signed narrow integers keep the signed ops.
// CHECK-LABEL: func.func @narrow_signed
// CHECK: arith.extsi %{{.*}} : i8 to i16
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i16
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i16
func.func @narrow_signed(%a: tensor<4xi8>, %b: tensor<4xi16>) -> (tensor<4xi1>, tensor<4xi16>) {
  %0 = "graph.Cast"(%a) <{to = 5 : i64}> : (tensor<4xi8>) -> tensor<4xi16>
  %1 = "graph.Less"(%0, %b) : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi1>
  %2 = "graph.Max"(%0, %b) : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %1, %2 : tensor<4xi1>, tensor<4xi16>
}

// -----

// QuantizeLinear: x / S in f32, rounded half to even in f64, NaN to the zero point, plus the
// zero point (read unsigned: 200), clamped to [0, 255].
// CHECK-LABEL: func.func @quantize_linear(%arg0: tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i8):
// CHECK-DAG: %[[S:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[Z:.*]] = arith.constant 200 : i64
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT: %[[QD:.*]] = arith.extf %[[Q]] : f32 to f64
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[Z]] : i64 to f64
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[QD]], %[[QD]] : f64
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[QD]] : f64
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[R]], %[[ZF]] : f64
// CHECK-NEXT: %[[T2:.*]] = arith.select %[[NAN]], %[[ZF]], %[[T]] : f64
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[HI:.*]] = arith.constant 2.550000e+02 : f64
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[T2]], %[[LO]] : f64
// CHECK-NEXT: %[[N:.*]] = arith.minimumf %[[M]], %[[HI]] : f64
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[N]] : f64 to i64
// CHECK-NEXT: %[[Y:.*]] = arith.trunci %[[I]] : i64 to i8
// CHECK-NEXT: linalg.yield %[[Y]] : i8
func.func @quantize_linear(%x: tensor<2x3xf32>) -> tensor<2x3xui8> {
  %s = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<200> : tensor<ui8>}> : () -> tensor<ui8>
  %0 = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Per-axis scales and zero points are constant tensors read along the axis.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[AX:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_linear_per_axis
// CHECK: tensor.empty() : tensor<2x3xi8>
// CHECK-NEXT: %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01]> : tensor<3xf32>
// CHECK: %[[Z:.*]] = arith.constant dense<[1, -2, 3]> : tensor<3xi64>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[AX]], #[[AX]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[S]], %[[Z]] : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi64>)
// CHECK: arith.constant -1.280000e+02 : f64
// CHECK: arith.constant 1.270000e+02 : f64
func.func @quantize_linear_per_axis(%x: tensor<2x3xf32>) -> tensor<2x3xi8> {
  %s = "graph.constant"() <{value = dense<[0.5, 0.25, 0.125]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %z = "graph.constant"() <{value = dense<[1, -2, 3]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %0 = "graph.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// DequantizeLinear: (x - Z) * S in f32 for a narrow zero point (x read unsigned), in f64 for
// a 32-bit one, rounded to f32 once.
// CHECK-LABEL: func.func @dequantize_linear
// CHECK: %[[Z:.*]] = arith.constant 128 : i64
// CHECK-NEXT: %[[XF:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[Z]] : i64 to f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[XF]], %[[ZF]] : f32
// CHECK-NEXT: arith.mulf %[[D]], %{{.*}} : f32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.subf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: arith.truncf %{{.*}} : f64 to f32
func.func @dequantize_linear(%x: tensor<2x3xui8>, %w: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xf32>) {
  %s = "graph.constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %z32 = "graph.constant"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
  %0 = "graph.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %1 = "graph.DequantizeLinear"(%w, %s, %z32) : (tensor<4xi32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4xf32>
}

// -----

// DynamicQuantizeLinear: the minimum and maximum with 0 (NaN ignored), then the scale and
// zero point, then the quantized elements; a zero or infinite scale gives zeros.
// CHECK-LABEL: func.func @dynamic_quantize_linear(%arg0: tensor<2x3xf32>) -> (tensor<2x3xi8>, tensor<f32>, tensor<i8>)
// CHECK: %[[LO:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.minnumf
// CHECK: %[[HI:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK: arith.maxnumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[LO]], %[[HI]] : tensor<f32>, tensor<f32>)
// CHECK: arith.constant 2.550000e+02 : f32
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[LO]], %[[S]] : tensor<f32>, tensor<f32>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[S]], %[[Z]] : tensor<2x3xf32>, tensor<f32>, tensor<i8>)
// CHECK: return %[[Y]], %[[S]], %[[Z]] : tensor<2x3xi8>, tensor<f32>, tensor<i8>
func.func @dynamic_quantize_linear(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  %0:3 = "graph.DynamicQuantizeLinear"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  return %0#0, %0#1, %0#2 : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}

// -----

// MatMulInteger: (a - Za[m]) * (b - Zb) summed in i32, a read unsigned and b signed.
// CHECK-DAG: #[[ZA:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @matmul_integer
// CHECK: %[[ZAS:.*]] = arith.constant dense<[3, 5]> : tensor<2xi64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[ZA]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1, %[[ZAS]] : tensor<2x4xi8>, tensor<4x3xi8>, tensor<2xi64>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : i32
func.func @matmul_integer(%a: tensor<2x4xui8>, %b: tensor<4x3xi8>) -> tensor<2x3xi32> {
  %za = "graph.constant"() <{value = dense<[3, 5]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %zb = "graph.constant"() <{value = dense<-1> : tensor<i8>}> : () -> tensor<i8>
  %0 = "graph.MatMulInteger"(%a, %b, %za, %zb) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<2xui8>, tensor<i8>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// QLinearMatMul: the i32 product, then acc * M + Zy in f64, clamped, rounded half to even;
// M = f32(f32(0.1 * 0.1) / 0.1) was computed at compile time.
// CHECK-LABEL: func.func @qlinear_matmul
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: ^bb0(%[[ACC:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT: %[[M:.*]] = arith.constant 1.0000001e-01 : f32
// CHECK-NEXT: %[[ZI:.*]] = arith.constant 128 : i64
// CHECK-NEXT: %[[A:.*]] = arith.sitofp %[[ACC]] : i32 to f64
// CHECK-NEXT: %[[MD:.*]] = arith.extf %[[M]] : f32 to f64
// CHECK-NEXT: %[[ZY:.*]] = arith.sitofp %[[ZI]] : i64 to f64
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[MD]] : f64
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[P]], %[[ZY]] : f64
// CHECK: arith.maximumf %[[R]]
// CHECK-NEXT: arith.minimumf
// CHECK-NEXT: math.roundeven
func.func @qlinear_matmul(%a: tensor<2x4xui8>, %b: tensor<4x3xui8>) -> tensor<2x3xui8> {
  %s = "graph.constant"() <{value = dense<0.1> : tensor<f32>}> : () -> tensor<f32>
  %z = "graph.constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %0 = "graph.QLinearMatMul"(%a, %s, %z, %b, %s, %z, %s, %z) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// ConvInteger: x padded with its zero point, a grouped generic summing in i32.
// CHECK-LABEL: func.func @conv_integer
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: arith.constant 12 : i8
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x2x1x4x4xi32> into tensor<1x2x4x4xi32>
func.func @conv_integer(%x: tensor<1x2x4x4xui8>) -> tensor<1x2x4x4xi32> {
  %w = "graph.constant"() <{value = dense<1> : tensor<2x1x3x3xui8>}> : () -> tensor<2x1x3x3xui8>
  %zx = "graph.constant"() <{value = dense<12> : tensor<ui8>}> : () -> tensor<ui8>
  %n = "graph.none"() : () -> none
  %0 = "graph.ConvInteger"(%x, %w, %zx, %n) <{group = 2 : i64, pads = array<i64: 1, 1, 1, 1>}> : (tensor<1x2x4x4xui8>, tensor<2x1x3x3xui8>, tensor<ui8>, none) -> tensor<1x2x4x4xi32>
  return %0 : tensor<1x2x4x4xi32>
}

// -----

// QLinearConv: the bias is added to the accumulator, then one multiplier per output channel
// (a constant tensor read at the channel).
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @qlinear_conv
// CHECK: %[[M:.*]] = arith.constant dense<[1.0000001e-02, 2.0000001e-02]> : tensor<2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[C]], #[[C]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %arg1, %[[M]] : tensor<1x2x2x2xi32>, tensor<2xi32>, tensor<2xf32>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.sitofp %{{.*}} : i32 to f64
func.func @qlinear_conv(%x: tensor<1x1x4x4xi8>, %b: tensor<2xi32>) -> tensor<1x2x2x2xi8> {
  %s = "graph.constant"() <{value = dense<0.05> : tensor<f32>}> : () -> tensor<f32>
  %ws = "graph.constant"() <{value = dense<[0.01, 0.02]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %z = "graph.constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %w = "graph.constant"() <{value = dense<3> : tensor<2x1x3x3xi8>}> : () -> tensor<2x1x3x3xi8>
  %0 = "graph.QLinearConv"(%x, %s, %z, %w, %ws, %z, %s, %z, %b) : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>, tensor<2x1x3x3xi8>, tensor<2xf32>, tensor<i8>, tensor<f32>, tensor<i8>, tensor<2xi32>) -> tensor<1x2x2x2xi8>
  return %0 : tensor<1x2x2x2xi8>
}

// -----

// Scales and zero points known only at run time are read by the generic from their tensors;
// the QLinear multiplier is then computed in the body with the same f32 operations.
// CHECK-DAG: #[[ZERO:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @run_time_parameters(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i8>, %arg3: tensor<2x4xi8>, %arg4: tensor<4x3xi8>) -> (tensor<2x3xi8>, tensor<2x3xi8>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[ZERO]], #[[ZERO]], #{{.*}}], {{.*}} ins(%arg0, %arg1, %arg2 : tensor<2x3xf32>, tensor<f32>, tensor<i8>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: arith.divf %[[X]], %[[S]] : f32
// CHECK: arith.extsi %[[Z]] : i8 to i64
// CHECK: ins(%{{.*}}, %arg1, %arg1, %arg1, %arg2 : tensor<2x3xi32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<i8>)
// CHECK: ^bb0(%{{.*}}: i32, %[[SA:.*]]: f32, %[[SB:.*]]: f32, %[[SY:.*]]: f32, %{{.*}}: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[AB:.*]] = arith.mulf %[[SA]], %[[SB]] : f32
// CHECK-NEXT: arith.divf %[[AB]], %[[SY]] : f32
func.func @run_time_parameters(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i8>, %a: tensor<2x4xi8>, %b: tensor<4x3xi8>) -> (tensor<2x3xi8>, tensor<2x3xi8>) {
  %0 = "graph.QuantizeLinear"(%x, %s, %z) : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %1 = "graph.QLinearMatMul"(%a, %s, %z, %b, %s, %z, %s, %z) : (tensor<2x4xi8>, tensor<f32>, tensor<i8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %0, %1 : tensor<2x3xi8>, tensor<2x3xi8>
}

// -----

// MaxPool of any spatial rank on unsigned integers (pools_ops.rs) compares unsigned.
// CHECK-LABEL: func.func @unsigned_max_pool_1d(%arg0: tensor<1x1x6xi8>) -> tensor<1x1x3xi8>
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
func.func @unsigned_max_pool_1d(%x: tensor<1x1x6xui8>) -> tensor<1x1x3xui8> {
  %0, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2>, strides = array<i64: 2>}> : (tensor<1x1x6xui8>) -> (tensor<1x1x3xui8>, none)
  return %0 : tensor<1x1x3xui8>
}
