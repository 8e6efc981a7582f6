// RUN: nart-opt %s --split-input-file --verify-diagnostics

// Each case gives the message mlir-opt 22 gives (the upstream diagnostics test runs this file
// through mlir-opt --verify-diagnostics too).

func.func @not_bytes(%b: memref<2048xf32>, %o: index) {
  // expected-error @+1 {{'memref.view' op operand #0 must be 1D memref of 8-bit signless integer values, but got 'memref<2048xf32>'}}
  %0 = memref.view %b[%o][] : memref<2048xf32> to memref<64x4xf32>
  return
}

// -----

func.func @sizes(%b: memref<2048xi8>, %o: index) {
  // expected-error @+1 {{'memref.view' op incorrect number of dynamic sizes, has 0, expected 1}}
  %0 = memref.view %b[%o][] : memref<2048xi8> to memref<?x4xf32>
  return
}

// -----

func.func @layout(%b: memref<2048xi8>, %o: index) {
  // expected-error @+1 {{unsupported map for result memref type 'memref<64x4xf32, strided<[4, 1], offset: 2>>'}}
  %0 = memref.view %b[%o][] : memref<2048xi8> to memref<64x4xf32, strided<[4, 1], offset: 2>>
  return
}
