// RUN: nart-opt %s --cse --mlir-timing -o /dev/null 2>&1 | filecheck %s --check-prefix=TIMING
// RUN: nart-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-pass-statistics -o /dev/null 2>&1 | filecheck %s --check-prefix=STATS
// RUN: nart-opt %s --cse --mlir-timing --mlir-pass-statistics | filecheck %s --check-prefix=STDOUT

// --mlir-timing reports, on stderr, the wall time of parsing, of every pass, of printing and of
// the rest, then a total (mlir-opt's layout).
// TIMING: ===-------------------------------------------------------------------------===
// TIMING-NEXT: {{^ +}}... Execution time report ...
// TIMING-NEXT: ===-------------------------------------------------------------------------===
// TIMING-NEXT: {{^}}  Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIMING-EMPTY:
// TIMING-NEXT: {{^}}  ----Wall Time----  ----Name----
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)  Parser$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)  CSE$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)  Output$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)  Rest$}}
// TIMING-NEXT: {{^ +[0-9]+\.[0-9]+ \(100\.0%\)  Total$}}

// --mlir-pass-statistics reports each pass's counters.
// STATS: ===-------------------------------------------------------------------------===
// STATS-NEXT: {{^ +}}... Pass statistics report ...
// STATS-NEXT: ===-------------------------------------------------------------------------===
// STATS: CSE
// STATS-NEXT: (S) 2 num-cse'd - Number of operations CSE'd
// STATS-NEXT: (S) 0 num-dce'd - Number of operations DCE'd

// The reports do not mix into the output IR.
// STDOUT-NOT: report
// STDOUT: func.func @f
// STDOUT-NOT: report
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  %3 = arith.muli %0, %1 : i32
  %4 = arith.addi %2, %3 : i32
  return %4 : i32
}
