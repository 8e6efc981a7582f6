// RUN: nart-opt %s --split-input-file --verify-diagnostics

// The verifier rules of upstream's mlir/test/Dialect/Arith/invalid.mlir, one case per upstream
// case, written for nart. Every case here also passes `mlir-opt --split-input-file
// --verify-diagnostics` (LLVM 22), which crates/nart-opt/tests/upstream_diagnostics.rs checks.
// Differences that remain are in ../../KNOWN_BUGS.md.

func.func @index_cast_rank0_to_rank1(%t: tensor<index>) {
  // expected-error @+1 {{'arith.index_cast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.index_cast %t : tensor<index> to tensor<3xi32>
  return
}

// -----

func.func @index_cast_static_to_dynamic(%t: tensor<8xindex>) {
  // expected-error @+1 {{'arith.index_cast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.index_cast %t : tensor<8xindex> to tensor<?xi32>
  return
}

// -----

func.func @index_cast_tensor_to_scalar(%t: tensor<index>) {
  // expected-error @+1 {{'arith.index_cast' op requires the same shape for all operands and results}}
  %0 = arith.index_cast %t : tensor<index> to i32
  return
}

// -----

func.func @constant_unsigned() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %0 = arith.constant 7 : ui8
  return
}

// -----

func.func @constant_complex_from_float() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = 2.5 : f64} : () -> complex<f64>
  return
}

// -----

func.func @constant_signed() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %0 = arith.constant 3 : si16
  return
}

// -----

func.func @bitcast_width_change(%x: f32) {
  // expected-error @+1 {{'arith.bitcast' op operand type 'f32' and result type 'i64' are cast incompatible}}
  %0 = arith.bitcast %x : f32 to i64
  return
}

// -----

func.func @constant_string_value() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = "text"} : () -> i8
  return
}

// -----

func.func @constant_untyped_integer() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = 5} : () -> i16
  return
}

// -----

func.func @constant_scalable_non_splat() {
  // expected-error @+1 {{'arith.constant' op intializing scalable vectors with elements attribute is not supported unless it's a vector splat}}
  %0 = arith.constant dense<[1, 2, 3, 4]> : vector<[4]xi8>
  return
}

// -----

func.func @constant_scalable_2d_non_splat() {
  // expected-error @+1 {{'arith.constant' op intializing scalable vectors with elements attribute is not supported unless it's a vector splat}}
  %0 = arith.constant dense<[[1.0], [2.0]]> : vector<2x[1]xf32>
  return
}

// -----

func.func @constant_float_width() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = 4.0} : () -> f16
  return
}

// -----

func.func @addi_on_floats(%x: f64) {
  // expected-error @+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'f64'}}
  %0 = arith.addi %x, %x : f64
  return
}

// -----

func.func @addui_extended_float(%x: f16) {
  // expected-error @+1 {{'arith.addui_extended' op operand #0 must be signless-integer-like, but got 'f16'}}
  %0:2 = arith.addui_extended %x, %x : f16, i1
  return
}

// -----

func.func @addui_extended_overflow_not_bool(%x: i16) {
  // expected-error @+1 {{'arith.addui_extended' op result #1 must be bool-like, but got 'i16'}}
  %0:2 = arith.addui_extended %x, %x : i16, i16
  return
}

// -----

func.func @addui_extended_scalar_overflow(%x: vector<3xi16>) {
  // expected-error @+1 {{'arith.addui_extended' op if an operand is non-scalar, then all results must be non-scalar}}
  %0:2 = arith.addui_extended %x, %x : vector<3xi16>, i1
  return
}

// -----

func.func @addui_extended_tensor_overflow(%x: vector<3xi16>) {
  // expected-error @+1 {{'arith.addui_extended' op all non-scalar operands/results must have the same shape and base type}}
  %0:2 = arith.addui_extended %x, %x : vector<3xi16>, tensor<3xi1>
  return
}

// -----

func.func @addf_on_integers(%x: i64) {
  // expected-error @+1 {{'arith.addf' op operand #0 must be floating-point-like, but got 'i64'}}
  %0 = arith.addf %x, %x : i64
  return
}

// -----

func.func @cmpi_bad_predicate_value(%x: i8) {
  // expected-error @+1 {{'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
  %0 = "arith.cmpi"(%x, %x) {predicate = 10} : (i8, i8) -> i1
  return
}

// -----

func.func @cmpi_integer_result(%x: i8, %y: i8) {
  // expected-error @+1 {{'arith.cmpi' op result #0 must be bool-like, but got 'i8'}}
  %0 = "arith.cmpi"(%x, %y) {predicate = 1} : (i8, i8) -> i8
  return
}

// -----

func.func @cmpi_no_predicate(%x: i8, %y: i8) {
  // expected-error @+1 {{'arith.cmpi' op requires attribute 'predicate'}}
  %0 = "arith.cmpi"(%x, %y) {bar = 2} : (i8, i8) -> i1
  return
}

// -----

func.func @cmpi_result_length(%v: vector<16xi8>) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%v, %v) {predicate = 4} : (vector<16xi8>, vector<16xi8>) -> vector<15xi1>
  return
}

// -----

func.func @cmpi_encoded_tensors(%t: tensor<6xi8, "enc">) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%t, %t) {predicate = 0} : (tensor<6xi8, "enc">, tensor<6xi8, "enc">) -> tensor<6xi1, "other">
  return
}

// -----

func.func @cmpf_bad_predicate_value(%x: f64) {
  // expected-error @+1 {{'arith.cmpf' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}
  %0 = "arith.cmpf"(%x, %x) {predicate = 16} : (f64, f64) -> i1
  return
}

// -----

func.func @cmpf_no_predicate(%x: f64, %y: f64) {
  // expected-error @+1 {{'arith.cmpf' op requires attribute 'predicate'}}
  %0 = "arith.cmpf"(%x, %y) {baz} : (f64, f64) -> i1
  return
}

// -----

func.func @cmpf_float_result(%x: f64, %y: f64) {
  // expected-error @+1 {{'arith.cmpf' op result #0 must be bool-like, but got 'f64'}}
  %0 = "arith.cmpf"(%x, %y) {predicate = 2} : (f64, f64) -> f64
  return
}

// -----

func.func @cmpf_result_length(%v: vector<7xf16>) {
  // expected-error @+1 {{'arith.cmpf' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpf"(%v, %v) {predicate = 3} : (vector<7xf16>, vector<7xf16>) -> vector<8xi1>
  return
}

// -----

func.func @cmpf_operand_lengths(%v: vector<7xf16>, %w: vector<8xf16>) {
  // expected-error @+1 {{'arith.cmpf' op requires all operands to have the same type}}
  %0 = "arith.cmpf"(%v, %w) {predicate = 3} : (vector<7xf16>, vector<8xf16>) -> vector<7xi1>
  return
}

// -----

func.func @cmpf_operand_widths(%x: f16, %y: f32) {
  // expected-error @+1 {{'arith.cmpf' op requires all operands to have the same type}}
  %0 = "arith.cmpf"(%x, %y) {predicate = 5} : (f16, f32) -> i1
  return
}

// -----

func.func @index_cast_index_to_index(%i: index) {
  // expected-error @+1 {{'arith.index_cast' op operand type 'index' and result type 'index' are cast incompatible}}
  %0 = arith.index_cast %i : index to index
  return
}

// -----

func.func @index_cast_to_float(%i: index) {
  // expected-error @+1 {{'arith.index_cast' op result #0 must be signless-integer-like or memref of signless-integer, but got 'f64'}}
  %0 = arith.index_cast %i : index to f64
  return
}

// -----

func.func @index_cast_from_float(%x: f16) {
  // expected-error @+1 {{'arith.index_cast' op operand #0 must be signless-integer-like or memref of signless-integer, but got 'f16'}}
  %0 = arith.index_cast %x : f16 to index
  return
}

// -----

func.func @sitofp_to_integer(%x: i16) {
  // expected-error @+1 {{'arith.sitofp' op result #0 must be floating-point-like, but got 'i32'}}
  %0 = arith.sitofp %x : i16 to i32
  return
}

// -----

func.func @sitofp_from_float(%x: f64) {
  // expected-error @+1 {{'arith.sitofp' op operand #0 must be signless-fixed-width-integer-like, but got 'f64'}}
  %0 = arith.sitofp %x : f64 to i64
  return
}

// -----

func.func @extf_narrowing(%x: f64) {
  // expected-error @+1 {{'arith.extf' op operand type 'f64' and result type 'f32' are cast incompatible}}
  %0 = arith.extf %x : f64 to f32
  return
}

// -----

func.func @extf_same_width(%x: bf16) {
  // expected-error @+1 {{'arith.extf' op operand type 'bf16' and result type 'bf16' are cast incompatible}}
  %0 = arith.extf %x : bf16 to bf16
  return
}

// -----

func.func @extf_from_integer(%x: i16) {
  // expected-error @+1 {{'arith.extf' op operand #0 must be floating-point-like, but got 'i16'}}
  %0 = arith.extf %x : i16 to f32
  return
}

// -----

func.func @extf_to_integer(%x: f16) {
  // expected-error @+1 {{'arith.extf' op result #0 must be floating-point-like, but got 'i64'}}
  %0 = arith.extf %x : f16 to i64
  return
}

// -----

func.func @extf_vector_length(%v: vector<5xf16>) {
  // expected-error @+1 {{'arith.extf' op requires the same shape for all operands and results}}
  %0 = arith.extf %v : vector<5xf16> to vector<6xf64>
  return
}

// -----

func.func @extf_vector_narrowing(%v: vector<5xf64>) {
  // expected-error @+1 {{'arith.extf' op operand type 'vector<5xf64>' and result type 'vector<5xf32>' are cast incompatible}}
  %0 = arith.extf %v : vector<5xf64> to vector<5xf32>
  return
}

// -----

func.func @extf_vector_same(%v: vector<5xf32>) {
  // expected-error @+1 {{'arith.extf' op operand type 'vector<5xf32>' and result type 'vector<5xf32>' are cast incompatible}}
  %0 = arith.extf %v : vector<5xf32> to vector<5xf32>
  return
}

// -----

func.func @extf_vector_from_integers(%v: vector<5xi16>) {
  // expected-error @+1 {{'arith.extf' op operand #0 must be floating-point-like, but got 'vector<5xi16>'}}
  %0 = arith.extf %v : vector<5xi16> to vector<5xf32>
  return
}

// -----

func.func @extf_vector_to_integers(%v: vector<5xf16>) {
  // expected-error @+1 {{'arith.extf' op result #0 must be floating-point-like, but got 'vector<5xi32>'}}
  %0 = arith.extf %v : vector<5xf16> to vector<5xi32>
  return
}

// -----

func.func @extf_tensor_encodings(%t: tensor<3xf16, "a">) {
  // expected-error @+1 {{'arith.extf' op operand type 'tensor<3xf16, "a">' and result type 'tensor<3xf32, "b">' are cast incompatible}}
  %0 = arith.extf %t : tensor<3xf16, "a"> to tensor<3xf32, "b">
  return
}

// -----

func.func @truncf_widening(%x: f32) {
  // expected-error @+1 {{'arith.truncf' op operand type 'f32' and result type 'f64' are cast incompatible}}
  %0 = arith.truncf %x : f32 to f64
  return
}

// -----

func.func @truncf_same_width(%x: f64) {
  // expected-error @+1 {{'arith.truncf' op operand type 'f64' and result type 'f64' are cast incompatible}}
  %0 = arith.truncf %x : f64 to f64
  return
}

// -----

func.func @truncf_from_integer(%x: i64) {
  // expected-error @+1 {{'arith.truncf' op operand #0 must be floating-point-like, but got 'i64'}}
  %0 = arith.truncf %x : i64 to f16
  return
}

// -----

func.func @truncf_to_integer(%x: f64) {
  // expected-error @+1 {{'arith.truncf' op result #0 must be floating-point-like, but got 'i16'}}
  %0 = arith.truncf %x : f64 to i16
  return
}

// -----

func.func @truncf_vector_length(%v: vector<6xf32>) {
  // expected-error @+1 {{'arith.truncf' op requires the same shape for all operands and results}}
  %0 = arith.truncf %v : vector<6xf32> to vector<2xf16>
  return
}

// -----

func.func @truncf_vector_widening(%v: vector<6xf16>) {
  // expected-error @+1 {{'arith.truncf' op operand type 'vector<6xf16>' and result type 'vector<6xf64>' are cast incompatible}}
  %0 = arith.truncf %v : vector<6xf16> to vector<6xf64>
  return
}

// -----

func.func @truncf_vector_same(%v: vector<6xf16>) {
  // expected-error @+1 {{'arith.truncf' op operand type 'vector<6xf16>' and result type 'vector<6xf16>' are cast incompatible}}
  %0 = arith.truncf %v : vector<6xf16> to vector<6xf16>
  return
}

// -----

func.func @truncf_vector_from_integers(%v: vector<6xi64>) {
  // expected-error @+1 {{'arith.truncf' op operand #0 must be floating-point-like, but got 'vector<6xi64>'}}
  %0 = arith.truncf %v : vector<6xi64> to vector<6xf16>
  return
}

// -----

func.func @truncf_vector_to_integers(%v: vector<6xf64>) {
  // expected-error @+1 {{'arith.truncf' op result #0 must be floating-point-like, but got 'vector<6xi16>'}}
  %0 = arith.truncf %v : vector<6xf64> to vector<6xi16>
  return
}

// -----

func.func @extsi_from_index(%i: index) {
  // expected-error @+1 {{'arith.extsi' op operand #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.extsi %i : index to i64
  return
}

// -----

func.func @extui_from_index(%i: index) {
  // expected-error @+1 {{'arith.extui' op operand #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.extui %i : index to i64
  return
}

// -----

func.func @trunci_from_index(%i: index) {
  // expected-error @+1 {{'arith.trunci' op operand #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.trunci %i : index to i8
  return
}

// -----

func.func @extsi_to_index(%x: i8) {
  // expected-error @+1 {{'arith.extsi' op result #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.extsi %x : i8 to index
  return
}

// -----

func.func @extui_to_index(%x: i8) {
  // expected-error @+1 {{'arith.extui' op result #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.extui %x : i8 to index
  return
}

// -----

func.func @trunci_to_index(%x: i64) {
  // expected-error @+1 {{'arith.trunci' op result #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.trunci %x : i64 to index
  return
}

// -----

func.func @extsi_narrowing(%x: i32) {
  // expected-error @+1 {{'arith.extsi' op operand type 'i32' and result type 'i31' are cast incompatible}}
  %0 = arith.extsi %x : i32 to i31
  return
}

// -----

func.func @extui_narrowing(%x: i32) {
  // expected-error @+1 {{'arith.extui' op operand type 'i32' and result type 'i8' are cast incompatible}}
  %0 = arith.extui %x : i32 to i8
  return
}

// -----

func.func @trunci_widening(%x: i32) {
  // expected-error @+1 {{'arith.trunci' op operand type 'i32' and result type 'i33' are cast incompatible}}
  %0 = arith.trunci %x : i32 to i33
  return
}

// -----

func.func @extsi_same_width(%x: i8) {
  // expected-error @+1 {{'arith.extsi' op operand type 'i8' and result type 'i8' are cast incompatible}}
  %0 = arith.extsi %x : i8 to i8
  return
}

// -----

func.func @extui_same_width(%x: i64) {
  // expected-error @+1 {{'arith.extui' op operand type 'i64' and result type 'i64' are cast incompatible}}
  %0 = arith.extui %x : i64 to i64
  return
}

// -----

func.func @trunci_same_width(%x: i1) {
  // expected-error @+1 {{'arith.trunci' op operand type 'i1' and result type 'i1' are cast incompatible}}
  %0 = arith.trunci %x : i1 to i1
  return
}

// -----

func.func @trunci_scalable_to_fixed(%v: vector<[8]xi64>) {
  // expected-error @+1 {{'arith.trunci' op requires the same shape for all operands and results}}
  %0 = arith.trunci %v : vector<[8]xi64> to vector<8xi16>
  return
}

// -----

func.func @truncf_scalable_to_fixed(%v: vector<[2]xf32>) {
  // expected-error @+1 {{'arith.truncf' op requires the same shape for all operands and results}}
  %0 = arith.truncf %v : vector<[2]xf32> to vector<2xf16>
  return
}

// -----

func.func @extui_scalable_to_fixed(%v: vector<[2]xi8>) {
  // expected-error @+1 {{'arith.extui' op requires the same shape for all operands and results}}
  %0 = arith.extui %v : vector<[2]xi8> to vector<2xi16>
  return
}

// -----

func.func @extsi_scalable_to_fixed(%v: vector<2x[2]xi8>) {
  // expected-error @+1 {{'arith.extsi' op requires the same shape for all operands and results}}
  %0 = arith.extsi %v : vector<2x[2]xi8> to vector<2x2xi16>
  return
}

// -----

func.func @extsi_static_to_dynamic(%t: tensor<2x3xi8>) {
  // expected-error @+1 {{'arith.extsi' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.extsi %t : tensor<2x3xi8> to tensor<2x?xi32>
  return
}

// -----

func.func @extf_scalable_to_fixed(%v: vector<[16]xf16>) {
  // expected-error @+1 {{'arith.extf' op requires the same shape for all operands and results}}
  %0 = arith.extf %v : vector<[16]xf16> to vector<16xf32>
  return
}

// -----

func.func @fptoui_scalable_to_fixed(%v: vector<[2]xf16>) {
  // expected-error @+1 {{'arith.fptoui' op requires the same shape for all operands and results}}
  %0 = arith.fptoui %v : vector<[2]xf16> to vector<2xi8>
  return
}

// -----

func.func @fptosi_scalable_to_fixed(%v: vector<[2]xf16>) {
  // expected-error @+1 {{'arith.fptosi' op requires the same shape for all operands and results}}
  %0 = arith.fptosi %v : vector<[2]xf16> to vector<2xi8>
  return
}

// -----

func.func @uitofp_scalable_to_fixed(%v: vector<[2]xi8>) {
  // expected-error @+1 {{'arith.uitofp' op requires the same shape for all operands and results}}
  %0 = arith.uitofp %v : vector<[2]xi8> to vector<2xf16>
  return
}

// -----

func.func @sitofp_scalable_to_fixed(%v: vector<[2]xi8>) {
  // expected-error @+1 {{'arith.sitofp' op requires the same shape for all operands and results}}
  %0 = arith.sitofp %v : vector<[2]xi8> to vector<2xf16>
  return
}

// -----

func.func @bitcast_scalable_to_fixed(%v: vector<[2]xi16>) {
  // expected-error @+1 {{'arith.bitcast' op requires the same shape for all operands and results}}
  %0 = arith.bitcast %v : vector<[2]xi16> to vector<2xf16>
  return
}

// -----

func.func @bitcast_static_to_dynamic(%t: tensor<5xi16>) {
  // expected-error @+1 {{'arith.bitcast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.bitcast %t : tensor<5xi16> to tensor<?xf16>
  return
}

// -----

func.func @bitcast_dynamic_to_static(%t: tensor<?x2xi16>) {
  // expected-error @+1 {{'arith.bitcast' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.bitcast %t : tensor<?x2xi16> to tensor<4x2xbf16>
  return
}

// -----

func.func @trunci_fixed_to_scalable(%v: vector<8xi64>) {
  // expected-error @+1 {{'arith.trunci' op requires the same shape for all operands and results}}
  %0 = arith.trunci %v : vector<8xi64> to vector<[8]xi16>
  return
}

// -----

func.func @truncf_fixed_to_scalable(%v: vector<2xf32>) {
  // expected-error @+1 {{'arith.truncf' op requires the same shape for all operands and results}}
  %0 = arith.truncf %v : vector<2xf32> to vector<[2]xf16>
  return
}

// -----

func.func @truncf_static_to_dynamic(%t: tensor<4xf32>) {
  // expected-error @+1 {{'arith.truncf' op failed to verify that input and output have the same tensor dimensions}}
  %0 = arith.truncf %t : tensor<4xf32> to tensor<?xbf16>
  return
}

// -----

func.func @extui_fixed_to_scalable(%v: vector<2xi8>) {
  // expected-error @+1 {{'arith.extui' op requires the same shape for all operands and results}}
  %0 = arith.extui %v : vector<2xi8> to vector<[2]xi16>
  return
}

// -----

func.func @extsi_fixed_to_scalable(%v: vector<4xi32>) {
  // expected-error @+1 {{'arith.extsi' op requires the same shape for all operands and results}}
  %0 = arith.extsi %v : vector<4xi32> to vector<[4]xi64>
  return
}

// -----

func.func @extf_fixed_to_scalable(%v: vector<16xf16>) {
  // expected-error @+1 {{'arith.extf' op requires the same shape for all operands and results}}
  %0 = arith.extf %v : vector<16xf16> to vector<[16]xf32>
  return
}

// -----

func.func @fptoui_fixed_to_scalable(%v: vector<2xf16>) {
  // expected-error @+1 {{'arith.fptoui' op requires the same shape for all operands and results}}
  %0 = arith.fptoui %v : vector<2xf16> to vector<[2]xi8>
  return
}

// -----

func.func @fptosi_fixed_to_scalable(%v: vector<2xf16>) {
  // expected-error @+1 {{'arith.fptosi' op requires the same shape for all operands and results}}
  %0 = arith.fptosi %v : vector<2xf16> to vector<[2]xi8>
  return
}

// -----

func.func @uitofp_fixed_to_scalable(%v: vector<2xi8>) {
  // expected-error @+1 {{'arith.uitofp' op requires the same shape for all operands and results}}
  %0 = arith.uitofp %v : vector<2xi8> to vector<[2]xf16>
  return
}

// -----

func.func @sitofp_fixed_to_scalable(%v: vector<2xi8>) {
  // expected-error @+1 {{'arith.sitofp' op requires the same shape for all operands and results}}
  %0 = arith.sitofp %v : vector<2xi8> to vector<[2]xf16>
  return
}

// -----

func.func @bitcast_fixed_to_scalable(%v: vector<2xi16>) {
  // expected-error @+1 {{'arith.bitcast' op requires the same shape for all operands and results}}
  %0 = arith.bitcast %v : vector<2xi16> to vector<[2]xf16>
  return
}

// -----

func.func @select_rank0_condition(%c: tensor<i1>, %a: tensor<3xi8>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = arith.select %c, %a, %a : tensor<i1>, tensor<3xi8>
  return
}

// -----

func.func @select_rank0_condition_dynamic(%c: tensor<i1>, %a: tensor<?x3xi8>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = arith.select %c, %a, %a : tensor<i1>, tensor<?x3xi8>
  return
}

// -----

func.func @select_condition_encoding(%c: tensor<4xi1, "x">, %a: tensor<4xi8, "y">) {
  // expected-error @+1 {{'arith.select' op expected condition type to have the same shape as the result type, expected 'tensor<4xi1, "y">', but got 'tensor<4xi1, "x">'}}
  %0 = arith.select %c, %a, %a : tensor<4xi1, "x">, tensor<4xi8, "y">
  return
}

// -----

func.func @bitcast_to_index(%x: i64) {
  // expected-error @+1 {{'arith.bitcast' op result #0 must be signless-integer-or-float-like or memref of signless-integer or float, but got 'index'}}
  %0 = arith.bitcast %x : i64 to index
  return
}

// -----

func.func @bitcast_from_index(%i: index) {
  // expected-error @+1 {{'arith.bitcast' op operand #0 must be signless-integer-or-float-like or memref of signless-integer or float, but got 'index'}}
  %0 = arith.bitcast %i : index to i64
  return
}
