// RUN: nart-translate --mlir-to-llvmir %s | filecheck %s

// A declaration is an external declaration; a private definition has internal linkage.
func.func private @ext(f64) -> f64
// CHECK-DAG: declare double @ext(double)

func.func private @helper(%x: f64) -> f64 {
  %0 = func.call @ext(%x) : (f64) -> f64
  return %0 : f64
}
// CHECK-LABEL: define internal double @helper(double %0)
// CHECK-NEXT:    %[[R:.*]] = call double @ext(double %0)
// CHECK-NEXT:    ret double %[[R]]

// Calls in any order of definition; several results are a literal struct.
func.func @divmod(%a: i32, %b: i32) -> (i32, i32) {
  %q = arith.divsi %a, %b : i32
  %r = arith.remui %a, %b : i32
  return %q, %r : i32, i32
}
// CHECK-LABEL: define { i32, i32 } @divmod(i32 %0, i32 %1)

func.func @caller(%a: i32, %x: f64) -> i32 {
  %0:2 = func.call @divmod(%a, %a) : (i32, i32) -> (i32, i32)
  %1 = arith.addi %0#0, %0#1 : i32
  %2 = func.call @helper(%x) : (f64) -> f64
  func.call @nothing() : () -> ()
  return %1 : i32
}
// CHECK-LABEL: define i32 @caller(i32 %0, double %1)
// CHECK-NEXT:    %[[P:.*]] = call { i32, i32 } @divmod(i32 %0, i32 %0)
// CHECK-NEXT:    %[[Q:.*]] = extractvalue { i32, i32 } %[[P]], 0
// CHECK-NEXT:    %[[R:.*]] = extractvalue { i32, i32 } %[[P]], 1
// CHECK-NEXT:    %[[S:.*]] = add i32 %[[Q]], %[[R]]
// CHECK-NEXT:    call double @helper(double %1)
// CHECK-NEXT:    call void @nothing()
// CHECK-NEXT:    ret i32 %[[S]]

func.func @nothing() {
  return
}
// CHECK-LABEL: define void @nothing()
// CHECK-NEXT:    ret void

// Memref arguments expand to the descriptor's fields as upstream; the C interface takes a
// pointer to the descriptor and unpacks it.
func.func @first_size(%m: memref<?x4xf32>) -> index {
  %c = arith.constant 0 : index
  return %c : index
}
// CHECK-LABEL: define i64 @first_size(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6)

// A function value is a pointer; func.call_indirect calls through it (through a constant
// pointer, LLVM's builder makes that a direct call).
func.func @apply(%f: (f64) -> f64, %x: f64) -> f64 {
  %r = func.call_indirect %f(%x) : (f64) -> f64
  %g = func.constant @helper : (f64) -> f64
  %s = func.call_indirect %g(%r) : (f64) -> f64
  return %s : f64
}
// CHECK-LABEL: define double @apply(ptr %0, double %1)
// CHECK-NEXT:    %[[R:.*]] = call double %0(double %1)
// CHECK-NEXT:    %[[S:.*]] = call double @helper(double %[[R]])
// CHECK-NEXT:    ret double %[[S]]

// Wrappers come last: none for the private helper.
// CHECK-NOT: @_mlir_ciface_helper
// CHECK-LABEL: define void @_mlir_ciface_divmod(ptr %0, i32 %1, i32 %2)
// CHECK-LABEL: define i32 @_mlir_ciface_caller(i32 %0, double %1)
// CHECK-LABEL: define void @_mlir_ciface_nothing()
// CHECK-LABEL: define i64 @_mlir_ciface_first_size(ptr %0)
// CHECK-NEXT:    %[[D:.*]] = load { ptr, ptr, i64, [2 x i64], [2 x i64] }, ptr %0
// CHECK-NEXT:    %[[ALLOC:.*]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[D]], 0
// CHECK-NEXT:    %[[ALIGN:.*]] = extractvalue {{.*}} %[[D]], 1
// CHECK-NEXT:    %[[OFF:.*]] = extractvalue {{.*}} %[[D]], 2
// CHECK-NEXT:    %[[SIZES:.*]] = extractvalue {{.*}} %[[D]], 3
// CHECK-NEXT:    %[[S0:.*]] = extractvalue [2 x i64] %[[SIZES]], 0
// CHECK-NEXT:    %[[S1:.*]] = extractvalue [2 x i64] %[[SIZES]], 1
// CHECK-NEXT:    %[[STRIDES:.*]] = extractvalue {{.*}} %[[D]], 4
// CHECK-NEXT:    %[[T0:.*]] = extractvalue [2 x i64] %[[STRIDES]], 0
// CHECK-NEXT:    %[[T1:.*]] = extractvalue [2 x i64] %[[STRIDES]], 1
// CHECK-NEXT:    %[[R:.*]] = call i64 @first_size(ptr %[[ALLOC]], ptr %[[ALIGN]], i64 %[[OFF]], i64 %[[S0]], i64 %[[S1]], i64 %[[T0]], i64 %[[T1]])
// CHECK-NEXT:    ret i64 %[[R]]

