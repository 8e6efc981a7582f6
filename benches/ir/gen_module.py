#!/usr/bin/env python3
"""Writes a module with N ops (arith ops chained in several functions) for the parse/verify/print
benchmark. Deterministic: the same N gives the same file."""
import sys

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    out = sys.argv[2] if len(sys.argv) > 2 else "/dev/stdout"
    per_func = 1000
    lines = ["module {"]
    made = 0
    f = 0
    while made < n:
        lines.append(f"  func.func @f{f}(%a: i32, %b: i32, %x: f32) -> (i32, f32) {{")
        prev_i, prev_f = "%a", "%x"
        k = 0
        body = min(per_func, n - made)
        while k < body - 1:
            r = k % 6
            if r == 0:
                lines.append(f"    %{k} = arith.addi {prev_i}, %b : i32"); prev_i = f"%{k}"
            elif r == 1:
                lines.append(f"    %{k} = arith.muli {prev_i}, %a : i32"); prev_i = f"%{k}"
            elif r == 2:
                lines.append(f"    %{k} = arith.mulf {prev_f}, %x : f32"); prev_f = f"%{k}"
            elif r == 3:
                lines.append(f"    %{k} = arith.constant {k} : i32")
                lines.append(f"    %s{k} = arith.subi {prev_i}, %{k} : i32"); prev_i = f"%s{k}"; k += 1
            elif r == 4:
                lines.append(f"    %{k} = arith.addf {prev_f}, {prev_f} : f32"); prev_f = f"%{k}"
            else:
                lines.append(f"    %{k} = arith.xori {prev_i}, %b : i32"); prev_i = f"%{k}"
            k += 1
        lines.append(f"    return {prev_i}, {prev_f} : i32, f32")
        lines.append("  }")
        made += k + 1
        f += 1
    lines.append("}")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
