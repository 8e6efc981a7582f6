"""Generates the benchmark inputs for benches/filecheck/run.sh.

Two shapes of about 50 MB each:
- dense: 10,000 positive checks (CHECK, CHECK-LABEL, CHECK-NEXT, regex blocks, numeric
  captures), each searching about 5 KB of MLIR-like text for one distinctive line;
- filler: 2,000 functions of about 25 KB each, every one delimited by a CHECK-LABEL and
  scanned by CHECK-NOT directives (literal, regex, anchored regex, variable substitution)
  that match nothing, so almost every input line is one that no check matches.
"""
import os
import sys

TARGET = 50 * 1024 * 1024


def filler_line(n, j):
    # Lines that no directive of either shape matches.
    kind = n % 5
    if kind == 0:
        return f"  %v{n} = arith.addi %a{j}, %b{j} : i32 loc(#loc{n % 977})\n"
    if kind == 1:
        return f"  %v{n} = arith.muli %v{n - 1}, %c{j % 64} : i32\n"
    if kind == 2:
        return f"  %v{n} = memref.load %buf[%i{j}, %j{j}] : memref<128x128xi32>\n"
    if kind == 3:
        return f"  %v{n} = arith.cmpi slt, %v{n - 1}, %bound : i32\n"
    return f"  memref.store %v{n - 2}, %out[%i{j}] : memref<128xi32>\n"


def dense(work):
    inp, chk = os.path.join(work, "dense.input"), os.path.join(work, "dense.check")
    nchecks = 10_000
    with open(inp, "w") as f, open(chk, "w") as c:
        n = 0
        per_block = TARGET // nchecks
        for k in range(nchecks):
            written = 0
            j = 0
            while written < per_block - 200:
                s = f"  %v{n} = arith.addi %a{j}, %b{j} : i32 loc(#loc{n % 977})\n"
                f.write(s)
                written += len(s)
                n += 1
                j += 1
            f.write(f"func.func @kernel_{k}(%arg0: tensor<{k % 64}x{(k * 7) % 128}xf32>) -> i32 attributes {{id = {k}}}\n")
            f.write(f"  return %r{k} : i32\n")
            kind = k % 4
            if kind == 0:
                c.write(f"CHECK: func.func @kernel_{k}(\n")
            elif kind == 1:
                c.write(f"CHECK-LABEL: @kernel_{k}(\n")
            elif kind == 2:
                c.write(f"CHECK: @kernel_{k}(%arg0: tensor<{{{{[0-9]+}}}}x{{{{[0-9]+}}}}xf32>)\n")
            else:
                c.write(f"CHECK: attributes {{id = [[#ID{k}:]]}}\n")
            if k % 10 == 0:
                c.write(f"CHECK-NEXT: return %r{k} : i32\n")
    return inp, chk


def filler(work):
    inp, chk = os.path.join(work, "filler.input"), os.path.join(work, "filler.check")
    nfuncs = 2_000
    with open(inp, "w") as f, open(chk, "w") as c:
        n = 0
        per_func = TARGET // nfuncs
        for k in range(nfuncs):
            f.write(f"func.func @kernel_{k}(%arg0: i32, %buf: memref<128x128xi32>) -> i32 {{\n")
            written = 0
            j = 0
            while written < per_func - 300:
                s = filler_line(n, j)
                f.write(s)
                written += len(s)
                n += 1
                j += 1
            f.write(f"  %r{k} = arith.addi %v{n - 1}, %arg0 : i32\n  return %r{k} : i32\n}}\n")
            c.write(f"// CHECK-LABEL: func.func @kernel_{k}(\n")
            kind = k % 6
            if kind == 0:
                c.write("// CHECK-NOT: arith.divsi\n// CHECK-NOT: memref.alloc\n")
            elif kind == 1:
                c.write("// CHECK-NOT: llvm.{{(call|invoke)}} @kernel\n")
            elif kind == 2:
                c.write("// CHECK-SAME: %[[ARG:[a-z0-9]+]]: i32\n")
                c.write("// CHECK-NOT: arith.divsi %[[ARG]]\n")
            elif kind == 3:
                c.write("// CHECK-NOT: {{^}}  llvm.call\n")
            elif kind == 4:
                c.write(f"// CHECK-NOT: call @kernel_{k}{{{{[^0-9]}}}}\n")
            else:
                c.write("// CHECK-NOT: memref.copy {{%[a-z0-9]+}}, %arg0\n")
            if k % 3 == 0:
                c.write(f"// CHECK: %r{k} = arith.addi\n")
                c.write(f"// CHECK-NEXT: return %r{k} : i32\n")
            else:
                c.write(f"// CHECK: return %r{k} : i32\n")
    return inp, chk


if __name__ == "__main__":
    work = sys.argv[1]
    for name in sys.argv[2:]:
        inp, chk = {"dense": dense, "filler": filler}[name](work)
        nchk = sum(1 for line in open(chk) if "CHECK" in line)
        print(f"{name}: input {os.path.getsize(inp) / 1e6:.1f} MB, {nchk} check lines")
