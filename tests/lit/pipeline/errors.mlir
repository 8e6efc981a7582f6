// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | filecheck %s --check-prefix=UNBALANCED
// RUN: not nart-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | filecheck %s --check-prefix=EXTRA
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(bogus))' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(cse,,canonicalize))' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{bogus=1}))' 2>&1 | filecheck %s --check-prefix=OPTKEY
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=abc}))' 2>&1 | filecheck %s --check-prefix=OPTVAL
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{region-simplify=bogus}))' 2>&1 | filecheck %s --check-prefix=ENUMVAL
// RUN: not nart-opt %s --pass-pipeline='' 2>&1 | filecheck %s --check-prefix=NOANCHOR
// RUN: not nart-opt %s --pass-pipeline='func.func(cse)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// RUN: not nart-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' 2>&1 | filecheck %s --check-prefix=SYMTAB
// RUN: not nart-opt %s --cse --pass-pipeline='builtin.module(cse)' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not nart-opt %s --bogus-pass 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not nart-opt %s --canonicalize=max-iterations=x 2>&1 | filecheck %s --check-prefix=FLAGOPT

// Errors in the textual pass pipeline: a message, the pipeline text, and a caret under the
// offending character. Nothing is printed on stdout and the exit code is 1.

// UNBALANCED: pass pipeline:1:15: error: encountered unbalanced parentheses while parsing pipeline
// UNBALANCED-NEXT: {{^}}builtin.module(func.func(cse){{$}}
// UNBALANCED-NEXT: {{^}}              ^{{$}}
// UNBALANCED-NOT: module

// EXTRA: pass pipeline:1:20: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline
// EXTRA-NEXT: {{^}}builtin.module(cse)){{$}}
// EXTRA-NEXT: {{^}}                   ^{{$}}

// UNKNOWN: pass pipeline:1:26: error: 'bogus' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: {{^}}builtin.module(func.func(bogus)){{$}}
// UNKNOWN-NEXT: {{^}}                         ^{{$}}

// EMPTY: pass pipeline:1:30: error: expected pass or pass pipeline name
// EMPTY-NEXT: {{^}}builtin.module(func.func(cse,,canonicalize)){{$}}
// EMPTY-NEXT: {{^}}                             ^{{$}}

// OPTKEY: pass pipeline:1:39: error: no such option 'bogus' (in the options of pass 'canonicalize')
// OPTKEY-NEXT: {{^}}builtin.module(func.func(canonicalize{bogus=1})){{$}}
// OPTKEY-NEXT: {{^}}                                      ^{{$}}

// OPTVAL: pass pipeline:1:54: error: for the 'max-iterations' option: 'abc' value invalid for integer argument (in the options of pass 'canonicalize')
// OPTVAL-NEXT: {{^}}builtin.module(func.func(canonicalize{max-iterations=abc})){{$}}
// OPTVAL-NEXT: {{^}}                                                     ^{{$}}

// ENUMVAL: pass pipeline:1:55: error: for the 'region-simplify' option: 'bogus' is not a valid value (expected one of: disabled, normal, aggressive) (in the options of pass 'canonicalize')
// ENUMVAL-NEXT: {{^}}builtin.module(func.func(canonicalize{region-simplify=bogus})){{$}}
// ENUMVAL-NEXT: {{^}}                                                      ^{{$}}

// NOANCHOR: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'

// A pipeline anchored on an op that is not the top-level op fails when it runs.
// ANCHOR: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: can't run 'func.func' pass manager on 'builtin.module' op
// A module pass nested under func.func fails on the function.
// SYMTAB: errors.mlir:[[@LINE+2]]:1: error: 'func.func' op was scheduled to run under SymbolDCE, but does not define a symbol table
// SYMTAB-NOT: module
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}

// Command-line errors.
// BOTH: nart-opt: '--pass-pipeline' cannot be combined with individual pass flags
// FLAG: nart-opt: unknown command line argument '--bogus-pass'
// FLAG-NEXT: Try 'nart-opt --help' for more information.
// FLAGOPT: pass pipeline:1:44: error: for the 'max-iterations' option: 'x' value invalid for integer argument (in the options of pass 'canonicalize')
// FLAGOPT-NEXT: {{^}}builtin.module(canonicalize{max-iterations=x}){{$}}
