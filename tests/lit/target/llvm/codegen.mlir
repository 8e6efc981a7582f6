// RUN: nart-translate --emit=asm --target-triple=aarch64-unknown-linux-gnu %s | filecheck %s --check-prefix=A64
// RUN: nart-translate --emit=asm --target-triple=aarch64-unknown-linux-gnu --mattr=+neon,+dotprod %s | filecheck %s --check-prefix=A64
// RUN: nart-translate --emit=asm --target-triple=x86_64-unknown-linux-gnu --mcpu=x86-64-v3 %s | filecheck %s --check-prefix=X86
// RUN: nart-translate --mlir-to-llvmir --target-triple=aarch64-unknown-linux-gnu --mcpu=cortex-a76 %s | filecheck %s --check-prefix=IR
// RUN: nart-translate --emit=obj -o %t.o --target-triple=aarch64-unknown-linux-gnu %s
// RUN: not nart-translate --emit=asm --target-triple=nonsense-unknown-none %s 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not nart-translate --emit=obj %s 2>&1 | filecheck %s --check-prefix=NOOUT

// Code generation for a named target: NEON on aarch64, AVX2 and FMA on x86-64-v3.
func.func @axpy4(%a: vector<4xf32>, %x: vector<4xf32>, %y: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.mulf %a, %x fastmath<contract> : vector<4xf32>
  %1 = arith.addf %0, %y fastmath<contract> : vector<4xf32>
  return %1 : vector<4xf32>
}
// A64-LABEL: axpy4:
// A64:         fmla v2.4s, v1.4s, v0.4s
// X86-LABEL: axpy4:
// X86:         vfmadd213ps

func.func @vmax(%a: vector<8xi16>, %b: vector<8xi16>) -> vector<8xi16> {
  %0 = arith.maxsi %a, %b : vector<8xi16>
  return %0 : vector<8xi16>
}
// A64-LABEL: vmax:
// A64:         smax v0.8h, v0.8h, v1.8h
// X86-LABEL: vmax:
// X86:         vpmaxsw

// IR: target triple = "aarch64-unknown-linux-gnu"
// IR: define <4 x float> @axpy4({{.*}}) #[[ATTRS:[0-9]+]]
// IR: attributes #[[ATTRS]] = { "target-cpu"="cortex-a76" "target-features"="+neon" }

// BAD: unknown target triple 'nonsense-unknown-none'
// NOOUT: an object file needs an output file: pass -o FILE
