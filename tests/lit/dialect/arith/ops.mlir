// RUN: nart-opt %s | nart-opt | filecheck %s
// RUN: nart-opt %s --mlir-print-op-generic | nart-opt | filecheck %s

// CHECK-LABEL: func.func @int_binary
// CHECK-NEXT: %{{.*}} = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.muli %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.divsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.divui %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.ceildivsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.ceildivui %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.floordivsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.remsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.remui %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.andi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.ori %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.xori %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.shli %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.shrsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.shrui %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.maxsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.maxui %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.minsi %arg0, %arg1 : i32
// CHECK-NEXT: %{{.*}} = arith.minui %arg0, %arg1 : i32
func.func @int_binary(%a: i32, %b: i32) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %a, %b : i32
  %2 = arith.muli %a, %b : i32
  %3 = arith.divsi %a, %b : i32
  %4 = arith.divui %a, %b : i32
  %5 = arith.ceildivsi %a, %b : i32
  %6 = arith.ceildivui %a, %b : i32
  %7 = arith.floordivsi %a, %b : i32
  %8 = arith.remsi %a, %b : i32
  %9 = arith.remui %a, %b : i32
  %10 = arith.andi %a, %b : i32
  %11 = arith.ori %a, %b : i32
  %12 = arith.xori %a, %b : i32
  %13 = arith.shli %a, %b : i32
  %14 = arith.shrsi %a, %b : i32
  %15 = arith.shrui %a, %b : i32
  %16 = arith.maxsi %a, %b : i32
  %17 = arith.maxui %a, %b : i32
  %18 = arith.minsi %a, %b : i32
  %19 = arith.minui %a, %b : i32
  return
}

// CHECK-LABEL: func.func @int_flags
// CHECK-NEXT: %{{.*}} = arith.addi %arg0, %arg1 overflow<nsw> : index
// CHECK-NEXT: %{{.*}} = arith.subi %arg0, %arg1 overflow<nuw> : index
// CHECK-NEXT: %{{.*}} = arith.muli %arg0, %arg1 overflow<nsw, nuw> : index
// CHECK-NEXT: %{{.*}} = arith.shli %arg0, %arg1 overflow<nsw> : index
// CHECK-NEXT: %{{.*}} = arith.divsi %arg0, %arg1 exact : index
// CHECK-NEXT: %{{.*}} = arith.shrui %arg0, %arg1 exact : index
func.func @int_flags(%a: index, %b: index) {
  %0 = arith.addi %a, %b overflow<nsw> : index
  %1 = arith.subi %a, %b overflow<nuw> : index
  %2 = arith.muli %a, %b overflow<nsw, nuw> : index
  %3 = arith.shli %a, %b overflow<nsw> : index
  %4 = arith.divsi %a, %b exact : index
  %5 = arith.shrui %a, %b exact : index
  return
}

// CHECK-LABEL: func.func @int_shaped
// CHECK-NEXT: %{{.*}} = arith.addi %arg0, %arg1 : vector<4xi8>
// CHECK-NEXT: %{{.*}} = arith.andi %arg2, %arg3 : tensor<2x?xi1>
func.func @int_shaped(%a: vector<4xi8>, %b: vector<4xi8>, %c: tensor<2x?xi1>, %d: tensor<2x?xi1>) {
  %0 = arith.addi %a, %b : vector<4xi8>
  %1 = arith.andi %c, %d : tensor<2x?xi1>
  return
}

// CHECK-LABEL: func.func @extended
// CHECK-NEXT: {{.*}} = arith.addui_extended %arg0, %arg1 : i32, i1
// CHECK-NEXT: {{.*}} = arith.mulsi_extended %arg0, %arg1 : i32
// CHECK-NEXT: {{.*}} = arith.mului_extended %arg0, %arg1 : i32
func.func @extended(%a: i32, %b: i32) {
  %sum, %overflow = arith.addui_extended %a, %b : i32, i1
  %low, %high = arith.mulsi_extended %a, %b : i32
  %low_0, %high_1 = arith.mului_extended %a, %b : i32
  return
}

// CHECK-LABEL: func.func @float_binary
// CHECK-NEXT: %{{.*}} = arith.addf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.subf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.mulf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.divf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.remf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.maximumf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.minimumf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.maxnumf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.minnumf %arg0, %arg1 : f32
// CHECK-NEXT: %{{.*}} = arith.negf %arg0 : f32
// CHECK-NEXT: %{{.*}} = arith.addf %arg0, %arg1 fastmath<nnan,ninf> : f32
// CHECK-NEXT: %{{.*}} = arith.mulf %arg0, %arg1 fastmath<fast> : f32
// CHECK-NEXT: %{{.*}} = arith.negf %arg0 fastmath<fast> : f32
// CHECK-NEXT: %{{.*}} = arith.addf %arg2, %arg2 : vector<[4]xf16>
func.func @float_binary(%x: f32, %y: f32, %vx: vector<[4]xf16>) {
  %0 = arith.addf %x, %y : f32
  %1 = arith.subf %x, %y : f32
  %2 = arith.mulf %x, %y : f32
  %3 = arith.divf %x, %y : f32
  %4 = arith.remf %x, %y : f32
  %5 = arith.maximumf %x, %y : f32
  %6 = arith.minimumf %x, %y : f32
  %7 = arith.maxnumf %x, %y : f32
  %8 = arith.minnumf %x, %y : f32
  %n = arith.negf %x : f32
  %fm = arith.addf %x, %y fastmath<nnan,ninf> : f32
  %ff = arith.mulf %x, %y fastmath<fast> : f32
  %nf = arith.negf %x fastmath<fast> : f32
  %v = arith.addf %vx, %vx : vector<[4]xf16>
  return
}

// CHECK-LABEL: func.func @cmpi
// CHECK-NEXT: %{{.*}} = arith.cmpi eq, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi ne, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi slt, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi sle, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi sgt, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi sge, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi ult, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi ule, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi ugt, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi uge, %arg0, %arg1 : i64
// CHECK-NEXT: %{{.*}} = arith.cmpi sle, %arg2, %arg2 : vector<4xindex>
func.func @cmpi(%a: i64, %b: i64, %va: vector<4xindex>) {
  %0 = arith.cmpi eq, %a, %b : i64
  %1 = arith.cmpi ne, %a, %b : i64
  %2 = arith.cmpi slt, %a, %b : i64
  %3 = arith.cmpi sle, %a, %b : i64
  %4 = arith.cmpi sgt, %a, %b : i64
  %5 = arith.cmpi sge, %a, %b : i64
  %6 = arith.cmpi ult, %a, %b : i64
  %7 = arith.cmpi ule, %a, %b : i64
  %8 = arith.cmpi ugt, %a, %b : i64
  %9 = arith.cmpi uge, %a, %b : i64
  %v = arith.cmpi sle, %va, %va : vector<4xindex>
  return
}

// CHECK-LABEL: func.func @cmpf
// CHECK-NEXT: %{{.*}} = arith.cmpf false, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf oeq, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ogt, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf oge, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf olt, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ole, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf one, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ord, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ueq, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ugt, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf uge, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ult, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf ule, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf une, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf uno, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf true, %arg0, %arg1 : f64
// CHECK-NEXT: %{{.*}} = arith.cmpf olt, %arg0, %arg1 fastmath<nnan> : f64
func.func @cmpf(%x: f64, %y: f64) {
  %0 = arith.cmpf false, %x, %y : f64
  %1 = arith.cmpf oeq, %x, %y : f64
  %2 = arith.cmpf ogt, %x, %y : f64
  %3 = arith.cmpf oge, %x, %y : f64
  %4 = arith.cmpf olt, %x, %y : f64
  %5 = arith.cmpf ole, %x, %y : f64
  %6 = arith.cmpf one, %x, %y : f64
  %7 = arith.cmpf ord, %x, %y : f64
  %8 = arith.cmpf ueq, %x, %y : f64
  %9 = arith.cmpf ugt, %x, %y : f64
  %10 = arith.cmpf uge, %x, %y : f64
  %11 = arith.cmpf ult, %x, %y : f64
  %12 = arith.cmpf ule, %x, %y : f64
  %13 = arith.cmpf une, %x, %y : f64
  %14 = arith.cmpf uno, %x, %y : f64
  %15 = arith.cmpf true, %x, %y : f64
  %fm = arith.cmpf olt, %x, %y fastmath<nnan> : f64
  return
}

// CHECK-LABEL: func.func @select
// CHECK-NEXT: %{{.*}} = arith.select %arg0, %arg1, %arg2 : i32
// CHECK-NEXT: %{{.*}} = arith.select %arg3, %arg4, %arg5 : vector<4xi1>, vector<4xf32>
// CHECK-NEXT: %{{.*}} = arith.select %arg0, %arg4, %arg5 : vector<4xf32>
func.func @select(%c: i1, %a: i32, %b: i32, %vc: vector<4xi1>, %va: vector<4xf32>, %vb: vector<4xf32>) {
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %vc, %va, %vb : vector<4xi1>, vector<4xf32>
  %2 = arith.select %c, %va, %vb : vector<4xf32>
  return
}

// CHECK-LABEL: func.func @casts
// CHECK-NEXT: %{{.*}} = arith.extsi %arg0 : i32 to i64
// CHECK-NEXT: %{{.*}} = arith.extui %arg0 : i32 to i64
// CHECK-NEXT: %{{.*}} = arith.trunci %arg0 : i32 to i8
// CHECK-NEXT: %{{.*}} = arith.extf %arg1 : f32 to f64
// CHECK-NEXT: %{{.*}} = arith.truncf %arg1 : f32 to bf16
// CHECK-NEXT: %{{.*}} = arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: %{{.*}} = arith.uitofp %arg0 : i32 to f64
// CHECK-NEXT: %{{.*}} = arith.fptosi %arg1 : f32 to i16
// CHECK-NEXT: %{{.*}} = arith.fptoui %arg1 : f32 to i64
// CHECK-NEXT: %{{.*}} = arith.bitcast %arg1 : f32 to i32
// CHECK-NEXT: %{{.*}} = arith.index_cast %arg0 : i32 to index
// CHECK-NEXT: %{{.*}} = arith.index_castui %arg2 : index to i32
// CHECK-NEXT: %{{.*}} = arith.extsi %arg3 : vector<4xi8> to vector<4xi32>
// CHECK-NEXT: %{{.*}} = arith.trunci %arg0 overflow<nsw> : i32 to i16
// CHECK-NEXT: %{{.*}} = arith.truncf %arg1 to_nearest_even : f32 to f16
func.func @casts(%i: i32, %f: f32, %x: index, %v: vector<4xi8>) {
  %0 = arith.extsi %i : i32 to i64
  %1 = arith.extui %i : i32 to i64
  %2 = arith.trunci %i : i32 to i8
  %3 = arith.extf %f : f32 to f64
  %4 = arith.truncf %f : f32 to bf16
  %5 = arith.sitofp %i : i32 to f32
  %6 = arith.uitofp %i : i32 to f64
  %7 = arith.fptosi %f : f32 to i16
  %8 = arith.fptoui %f : f32 to i64
  %9 = arith.bitcast %f : f32 to i32
  %10 = arith.index_cast %i : i32 to index
  %11 = arith.index_castui %x : index to i32
  %12 = arith.extsi %v : vector<4xi8> to vector<4xi32>
  %tr = arith.trunci %i overflow<nsw> : i32 to i16
  %tf = arith.truncf %f to_nearest_even : f32 to f16
  return
}

// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %{{.*}} = arith.constant 42 : i32
// CHECK-NEXT: %{{.*}} = arith.constant -1 : i8
// CHECK-NEXT: %{{.*}} = arith.constant true
// CHECK-NEXT: %{{.*}} = arith.constant 1.500000e+00 : f32
// CHECK-NEXT: %{{.*}} = arith.constant 7 : index
// CHECK-NEXT: %{{.*}} = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
// CHECK-NEXT: %{{.*}} = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
func.func @constants() {
  %0 = arith.constant 42 : i32
  %1 = arith.constant -1 : i8
  %2 = arith.constant true
  %3 = arith.constant 1.500000e+00 : f32
  %4 = arith.constant 7 : index
  %5 = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
  %6 = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
  return
}
