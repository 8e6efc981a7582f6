// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// Integer arithmetic keeps its overflow and exact flags.
func.func @int_flags(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.subi %0, %b overflow<nuw> : i32
  %2 = arith.muli %1, %a overflow<nsw, nuw> : i32
  %3 = arith.divui %2, %b exact : i32
  %4 = arith.shrsi %3, %a exact : i32
  %5 = arith.shli %4, %b : i32
  return %5 : i32
}
// CHECK-LABEL: define i32 @int_flags(i32 %0, i32 %1)
// CHECK-NEXT:    %[[ADD:.*]] = add nsw i32 %0, %1
// CHECK-NEXT:    %[[SUB:.*]] = sub nuw i32 %[[ADD]], %1
// CHECK-NEXT:    %[[MUL:.*]] = mul nuw nsw i32 %[[SUB]], %0
// CHECK-NEXT:    %[[DIV:.*]] = udiv exact i32 %[[MUL]], %1
// CHECK-NEXT:    %[[SHR:.*]] = ashr exact i32 %[[DIV]], %0
// CHECK-NEXT:    %[[SHL:.*]] = shl i32 %[[SHR]], %1
// CHECK-NEXT:    ret i32 %[[SHL]]

// Min and max are LLVM's integer intrinsics; index is i64.
func.func @minmax(%a: index, %b: index) -> index {
  %0 = arith.maxsi %a, %b : index
  %1 = arith.minui %0, %b : index
  return %1 : index
}
// CHECK-LABEL: define i64 @minmax(i64 %0, i64 %1)
// CHECK-NEXT:    %[[MAX:.*]] = call i64 @llvm.smax.i64(i64 %0, i64 %1)
// CHECK-NEXT:    call i64 @llvm.umin.i64(i64 %[[MAX]], i64 %1)

// `MIN % -1` is 0 in arith but undefined for LLVM's srem: the divisor -1 becomes 1.
func.func @rem(%a: i16, %b: i16) -> i16 {
  %0 = arith.remsi %a, %b : i16
  return %0 : i16
}
// CHECK-LABEL: define i16 @rem(i16 %0, i16 %1)
// CHECK-NEXT:    %[[M1:.*]] = icmp eq i16 %1, -1
// CHECK-NEXT:    %[[D:.*]] = select i1 %[[M1]], i16 1, i16 %1
// CHECK-NEXT:    srem i16 %0, %[[D]]

// floordivsi: the quotient minus one when the remainder and the divisor differ in sign.
func.func @floordiv(%a: i32, %b: i32) -> i32 {
  %0 = arith.floordivsi %a, %b : i32
  return %0 : i32
}
// CHECK-LABEL: define i32 @floordiv(i32 %0, i32 %1)
// CHECK-NEXT:    %[[Q:.*]] = sdiv i32 %0, %1
// CHECK-NEXT:    %[[R:.*]] = srem i32 %0, %1
// CHECK-NEXT:    %[[NZ:.*]] = icmp ne i32 %[[R]], 0
// CHECK-NEXT:    %[[RN:.*]] = icmp slt i32 %[[R]], 0
// CHECK-NEXT:    %[[BN:.*]] = icmp slt i32 %1, 0
// CHECK-NEXT:    %[[DIFF:.*]] = icmp ne i1 %[[RN]], %[[BN]]
// CHECK-NEXT:    %[[ADJ:.*]] = and i1 %[[NZ]], %[[DIFF]]
// CHECK-NEXT:    %[[QM1:.*]] = sub i32 %[[Q]], 1
// CHECK-NEXT:    select i1 %[[ADJ]], i32 %[[QM1]], i32 %[[Q]]

// The extended operations compute at twice the width.
func.func @extended(%a: i8, %b: i8) -> (i8, i8, i1) {
  %lo, %hi = arith.mulsi_extended %a, %b : i8
  %sum, %carry = arith.addui_extended %lo, %hi : i8, i1
  return %hi, %sum, %carry : i8, i8, i1
}
// CHECK-LABEL: define { i8, i8, i1 } @extended(i8 %0, i8 %1)
// CHECK-NEXT:    %[[A:.*]] = sext i8 %0 to i16
// CHECK-NEXT:    %[[B:.*]] = sext i8 %1 to i16
// CHECK-NEXT:    %[[P:.*]] = mul i16 %[[A]], %[[B]]
// CHECK-NEXT:    %[[LO:.*]] = trunc i16 %[[P]] to i8
// CHECK-NEXT:    %[[SH:.*]] = lshr i16 %[[P]], 8
// CHECK-NEXT:    %[[HI:.*]] = trunc i16 %[[SH]] to i8
// CHECK-NEXT:    %[[SUM:.*]] = add i8 %[[LO]], %[[HI]]
// CHECK-NEXT:    %[[C:.*]] = icmp ult i8 %[[SUM]], %[[LO]]
// CHECK-NEXT:    %[[S0:.*]] = insertvalue { i8, i8, i1 } undef, i8 %[[HI]], 0
// CHECK-NEXT:    %[[S1:.*]] = insertvalue { i8, i8, i1 } %[[S0]], i8 %[[SUM]], 1
// CHECK-NEXT:    %[[S2:.*]] = insertvalue { i8, i8, i1 } %[[S1]], i1 %[[C]], 2
// CHECK-NEXT:    ret { i8, i8, i1 } %[[S2]]

// Float arithmetic keeps its fast-math flags; NaN-aware min and max are intrinsics.
func.func @float(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b fastmath<nnan,contract> : f32
  %1 = arith.mulf %0, %b fastmath<fast> : f32
  %2 = arith.remf %1, %a : f32
  %3 = arith.negf %2 : f32
  %4 = arith.maximumf %3, %a : f32
  %5 = arith.minnumf %4, %b : f32
  return %5 : f32
}
// CHECK-LABEL: define float @float(float %0, float %1)
// CHECK-NEXT:    %[[ADD:.*]] = fadd nnan contract float %0, %1
// CHECK-NEXT:    %[[MUL:.*]] = fmul fast float %[[ADD]], %1
// CHECK-NEXT:    %[[REM:.*]] = frem float %[[MUL]], %0
// CHECK-NEXT:    %[[NEG:.*]] = fneg float %[[REM]]
// CHECK-NEXT:    %[[MAX:.*]] = call float @llvm.maximum.f32(float %[[NEG]], float %0)
// CHECK-NEXT:    call float @llvm.minnum.f32(float %[[MAX]], float %1)

// Comparisons and select.
func.func @compare(%a: f64, %b: f64, %x: i64, %y: i64) -> i64 {
  %0 = arith.cmpf ult, %a, %b : f64
  %1 = arith.cmpi sge, %x, %y : i64
  %2 = arith.andi %0, %1 : i1
  %3 = arith.select %2, %x, %y : i64
  return %3 : i64
}
// CHECK-LABEL: define i64 @compare(double %0, double %1, i64 %2, i64 %3)
// CHECK-NEXT:    %[[F:.*]] = fcmp ult double %0, %1
// CHECK-NEXT:    %[[I:.*]] = icmp sge i64 %2, %3
// CHECK-NEXT:    %[[AND:.*]] = and i1 %[[F]], %[[I]]
// CHECK-NEXT:    select i1 %[[AND]], i64 %2, i64 %3

// Casts.
func.func @casts(%a: i8, %f: f64, %i: index) -> (i32, f32, i16, i64, f32, i32) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.truncf %f : f64 to f32
  %2 = arith.fptosi %1 : f32 to i16
  %3 = arith.index_castui %i : index to i64
  %4 = arith.uitofp %a : i8 to f32
  %5 = arith.bitcast %4 : f32 to i32
  %6 = arith.index_cast %i : index to i32
  return %0, %1, %2, %3, %4, %6 : i32, f32, i16, i64, f32, i32
}
// CHECK-LABEL: define { i32, float, i16, i64, float, i32 } @casts(i8 %0, double %1, i64 %2)
// CHECK-NEXT:    %[[E:.*]] = sext i8 %0 to i32
// CHECK-NEXT:    %[[T:.*]] = fptrunc double %1 to float
// CHECK-NEXT:    %[[S:.*]] = fptosi float %[[T]] to i16
// CHECK-NEXT:    %[[U:.*]] = uitofp i8 %0 to float
// CHECK-NEXT:    bitcast float %[[U]] to i32
// CHECK-NEXT:    %[[IC:.*]] = trunc i64 %2 to i32

// Constants, scalar and vector, splat and dense; vector arithmetic.
func.func @constants(%v: vector<4xf32>) -> (vector<4xf32>, vector<4xi32>, i1, i128) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %0 = arith.addf %v, %c : vector<4xf32>
  %s = arith.constant dense<7> : vector<4xi32>
  %t = arith.constant true
  %w = arith.constant -1 : i128
  return %0, %s, %t, %w : vector<4xf32>, vector<4xi32>, i1, i128
}
// CHECK-LABEL: define { <4 x float>, <4 x i32>, i1, i128 } @constants(<4 x float> %0)
// CHECK-NEXT:    %[[ADD:.*]] = fadd <4 x float> %0, <float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00>
// CHECK-NEXT:    %[[S0:.*]] = insertvalue {{.*}} undef, <4 x float> %[[ADD]], 0
// CHECK-NEXT:    %[[S1:.*]] = insertvalue {{.*}} %[[S0]], <4 x i32> splat (i32 7), 1
// CHECK-NEXT:    %[[S2:.*]] = insertvalue {{.*}} %[[S1]], i1 true, 2
// CHECK-NEXT:    insertvalue {{.*}} %[[S2]], i128 -1, 3

// Vector comparisons give vectors of i1.
func.func @vector_cmp(%a: vector<8xi16>, %b: vector<8xi16>) -> vector<8xi16> {
  %0 = arith.cmpi ugt, %a, %b : vector<8xi16>
  %1 = arith.select %0, %a, %b : vector<8xi1>, vector<8xi16>
  return %1 : vector<8xi16>
}
// CHECK-LABEL: define <8 x i16> @vector_cmp(<8 x i16> %0, <8 x i16> %1)
// CHECK-NEXT:    %[[C:.*]] = icmp ugt <8 x i16> %0, %1
// CHECK-NEXT:    select <8 x i1> %[[C]], <8 x i16> %0, <8 x i16> %1

// Every public function gets a C-interface wrapper; several results come back through a
// pointer.
// CHECK-LABEL: define i32 @_mlir_ciface_int_flags(i32 %0, i32 %1)
// CHECK-NEXT:    %[[R:.*]] = call i32 @int_flags(i32 %0, i32 %1)
// CHECK-NEXT:    ret i32 %[[R]]
// CHECK-LABEL: define void @_mlir_ciface_extended(ptr %0, i8 %1, i8 %2)
// CHECK-NEXT:    %[[R:.*]] = call { i8, i8, i1 } @extended(i8 %1, i8 %2)
// CHECK-NEXT:    store { i8, i8, i1 } %[[R]], ptr %0
// CHECK-NEXT:    ret void
