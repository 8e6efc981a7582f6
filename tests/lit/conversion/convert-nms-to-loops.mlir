// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-nms-to-loops))' | filecheck %s
// RUN: nart-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-nms-to-loops,convert-graph-to-linalg),nart-bufferize{arena=true})' | filecheck %s --check-prefix=BUF

// Center boxes, a run-time IoU threshold and a constant score threshold: the returned result
// is bounded by 2 batches * 3 classes * min(2, 5) boxes = 12 rows, and a count result follows
// the function's own results.
// CHECK-LABEL: func.func @center
// CHECK-SAME: -> (tensor<4xf32>, tensor<12x3xi64>, tensor<1xi64>)
// CHECK: %[[IOU:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<1xf32>
// CHECK: %[[SCORE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[IOU64:.*]] = arith.extf %[[IOU]] : f32 to f64
// CHECK: %[[OUT_T:.*]] = tensor.empty() : tensor<12x3xi64>
// CHECK: %[[CNT_T:.*]] = tensor.empty() : tensor<1xi64>
// CHECK: %[[ORDER_T:.*]] = tensor.empty() : tensor<5xi64>
// CHECK: %[[BOXES:.*]] = bufferization.to_buffer %arg0 read_only : tensor<2x5x4xf32> to memref<2x5x4xf32>
// CHECK: %[[SCORES:.*]] = bufferization.to_buffer %arg1 read_only : tensor<2x3x5xf32> to memref<2x3x5xf32>
// CHECK: %[[OUT:.*]] = bufferization.to_buffer %[[OUT_T]] : tensor<12x3xi64> to memref<12x3xi64>
// CHECK: %[[CNT:.*]] = bufferization.to_buffer %[[CNT_T]] : tensor<1xi64> to memref<1xi64>
// Candidates: scores strictly above the threshold, in index order.
// CHECK: memref.load %[[SCORES]]
// CHECK-NEXT: arith.cmpf ogt, %{{.*}}, %[[SCORE]] : f32
// A stable insertion sort, highest score first.
// CHECK: scf.while
// CHECK: arith.cmpf olt
// CHECK: scf.condition
// Greedy selection while fewer than 2 are kept; corners from centers in f64.
// CHECK: arith.cmpi ult
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.subf
// CHECK: %[[IOU_V:.*]] = arith.select
// CHECK-NEXT: arith.cmpf ogt, %[[IOU_V]], %[[IOU64]] : f64
// CHECK: memref.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<12x3xi64>
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT: memref.store %[[N]], %[[CNT]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT: %[[RES:.*]] = bufferization.to_tensor %[[OUT]] : memref<12x3xi64> to tensor<12x3xi64>
// CHECK-NEXT: %[[NRES:.*]] = bufferization.to_tensor %[[CNT]] : memref<1xi64> to tensor<1xi64>
// CHECK-NOT: graph.NonMaxSuppression
// CHECK: return %{{.*}}, %[[RES]], %[[NRES]] : tensor<4xf32>, tensor<12x3xi64>, tensor<1xi64>
// After bufferization the casts are gone: the result and the count are out-parameters the
// loops write, and the order of the candidates lives in the arena.
// BUF-LABEL: func.func @center
// BUF-SAME: %arg4: memref<12x3xi64>, %arg5: memref<1xi64>, %arg6: memref<40xi8>)
// BUF-NOT: bufferization.
// BUF: memref.view %arg6[%{{.*}}][] : memref<40xi8> to memref<5xi64>
// BUF-NOT: bufferization.
// BUF: memref.store %{{.*}}, %arg4[%{{.*}}, %{{.*}}] : memref<12x3xi64>
// BUF-NOT: bufferization.
// BUF: memref.store %{{.*}}, %arg5[%{{.*}}] : memref<1xi64>
// BUF: return
func.func @center(%b: tensor<2x5x4xf32>, %s: tensor<2x3x5xf32>, %iou: tensor<1xf32>) -> (tensor<4xf32>, tensor<?x3xi64>) {
  %m = "graph.constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t = "graph.constant"() <{value = dense<2.5e-01> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %iou, %t) <{center_point_box = 1 : i64}> : (tensor<2x5x4xf32>, tensor<2x3x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  %x = "graph.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  return %x, %y : tensor<4xf32>, tensor<?x3xi64>
}

// -----

// Corner boxes in any diagonal order, no thresholds (IoU 0, every box a candidate), and a
// max above the number of boxes: min(9, 3) per class.
// CHECK-LABEL: func.func @corners
// CHECK-SAME: -> (tensor<3x3xi64>, tensor<1xi64>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[TAKE:.*]] = arith.constant true
// CHECK-NEXT: scf.if %[[TAKE]]
// CHECK: arith.minnumf
// CHECK: arith.maxnumf
// BUF-LABEL: func.func @corners
// BUF-SAME: %arg2: memref<3x3xi64>, %arg3: memref<1xi64>
func.func @corners(%b: tensor<1x3x4xf32>, %s: tensor<1x1x3xf32>) -> tensor<?x3xi64> {
  %m = "graph.constant"() <{value = dense<9> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x3x4xf32>, tensor<1x1x3xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}

// -----

// Without max_output_boxes_per_class no box is kept (ONNX's default of 0): one row of bound
// (no buffer is empty), and the count is always 0.
// CHECK-LABEL: func.func @no_max
// CHECK-SAME: -> (tensor<1x3xi64>, tensor<1xi64>)
// CHECK: arith.constant 3 : index
// CHECK: %[[M:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]] : index
func.func @no_max(%b: tensor<1x3x4xf32>, %s: tensor<1x2x3xf32>) -> tensor<?x3xi64> {
  %n = "graph.none"() : () -> none
  %y = "graph.NonMaxSuppression"(%b, %s, %n, %n, %n) : (tensor<1x3x4xf32>, tensor<1x2x3xf32>, none, none, none) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}

// -----

// A maximum read at run time is clamped to [0, boxes] there, and the bound is every box of
// every class: 1 * 2 * 3 rows.
// CHECK-LABEL: func.func @run_time_max
// CHECK-SAME: -> (tensor<6x3xi64>, tensor<1xi64>)
// CHECK: %[[M:.*]] = tensor.extract %arg2[] : tensor<i64>
// CHECK: %[[M1:.*]] = arith.maxsi %[[M]], %{{.*}} : i64
// CHECK: %[[M2:.*]] = arith.minsi %[[M1]], %{{.*}} : i64
// CHECK: %[[MI:.*]] = arith.index_cast %[[M2]] : i64 to index
// CHECK: arith.cmpi ult, %{{.*}}, %[[MI]] : index
func.func @run_time_max(%b: tensor<1x3x4xf32>, %s: tensor<1x2x3xf32>, %m: tensor<i64>) -> tensor<?x3xi64> {
  %n = "graph.none"() : () -> none
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x3x4xf32>, tensor<1x2x3xf32>, tensor<i64>, none, none) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}
