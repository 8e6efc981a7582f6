#!/usr/bin/env python3
"""Scorecard: nart-opt against upstream mlir-opt on MLIR's own lit tests.

Runs upstream MLIR lit tests for builtin/func/cf/arith (and the generic
transforms nart implements) chunk by chunk, once with upstream `mlir-opt`
(LLVM 22) and once with `nart-opt` substituted for `mlir-opt`, and counts,
for the chunks upstream passes, how many nart passes too.

How a file is measured
  * Its RUN lines are read (`// RUN:`, `\\` continuations joined).
  * A RUN line with -split-input-file works on the file's `// -----` chunks
    (split as mlir-opt splits: a chunk starts right after the marker); a RUN
    line without it works on the whole file (one chunk).
  * Each (RUN line, chunk) is a *case*.  The chunk is written ALONE to a
    temporary file with the test's own file name, and the RUN pipeline is run
    on it twice: with `mlir-opt` -> upstream mlir-opt, and with every
    `mlir-opt` -> nart-opt.  `FileCheck` is always LLVM's FileCheck and its
    check file (`%s`) is the chunk itself, so only the chunk's own CHECK lines
    count (CHECK-LABEL scoping is per chunk).  A chunk that has no directive
    for the RUN line's prefixes has nothing to check: its FileCheck stage only
    drains its input.  Where only some of several prefixes occur,
    --allow-unused-prefixes is added.
  * A case passes under a tool when its whole pipeline succeeds (lit's
    pipefail): -verify-diagnostics runs exit 0; FileCheck runs are accepted by
    FileCheck.  `not` is run natively (a crash is not a pass).
  * Crashes (killed by a signal, exit status >= 101, or 'panicked' on stderr
    of the mlir-opt/nart-opt stage) and timeouts (--timeout, default 10 s for
    a whole pipeline) are counted apart from plain failures.
  * RUN lines nart cannot attempt are SKIPPED, never silently: every skipped
    case is counted under its reason.  Reasons: a test pass or flag (-test-*,
    or a test-* pass in a pipeline); a pass nart-opt --list-passes does not
    list; a pass option nart does not accept; a flag nart-opt does not accept
    (each flag is probed once on an empty module); a command or shell syntax
    this runner does not implement.  Skipped cases are run with neither tool.

Counts (per file and in total)
  cases       (RUN line, chunk) pairs; chunks = distinct chunks
  skipped     cases not run (see the reasons listed under the table)
  mlir ok     cases upstream mlir-opt passes
  nart ok     cases mlir-opt passes and nart-opt passes too
  nart-only   cases nart-opt passes and mlir-opt does not
  crash       cases where the nart-opt stage crashed (mlir-opt crashes are
              listed separately when there are any)
  timeout     cases that timed out under either tool (m/n)

Options
  --json PATH (or -) writes everything, per case, as JSON;
  --show-failures FILE lists, for one test file (a suffix of its upstream path
  is enough), the cases mlir-opt passes and nart-opt fails (and nart crashes
  and timeouts), with nart's first stderr line;
  --top N lists the N most common first stderr lines (normalized: locations
  and numbers removed) of those failures, with an example case each.

Output is deterministic: files in the order below, cases by RUN line then
chunk; at most 2 cases run at a time (--jobs, capped at 2).

The test files are NOT part of this repository.  Fetch them from
llvm/llvm-project into --tests-dir (default /tmp/upstream-mlir-tests),
keeping their upstream relative paths, at these commits (the versions
measured when this script was written; a different version changes the
numbers):

"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# (upstream path, llvm/llvm-project commit the measured copy was taken at, its length
# in characters: a copy of another length is flagged as a different version)
UPSTREAM_FILES = [
    ("mlir/test/Dialect/Arith/canonicalize.mlir", "020f396457e7b844c5e3b62fadd5d783e986d601", 117131),
    ("mlir/test/Dialect/Arith/constant-fold.mlir", "c3b8eb60b635137af3adf9fbb40f659515a11709", 934),
    ("mlir/test/Dialect/Arith/fold-partial.mlir", "36c1c8040755178fda3e811f111bc0eb9e10bb26", 3230),
    ("mlir/test/Dialect/Arith/invalid.mlir", "058ec5f27d5cf91558c90178adc1833d8faa8894", 24750),
    ("mlir/test/Dialect/Arith/ops.mlir", "eeb49dea6ff0470cef0a44e341283b16cd6a5d89", 40150),
    ("mlir/test/Dialect/ControlFlow/canonicalize.mlir", "04a3be8ccf052e0aa0eb4269228773206dbfdfca", 18210),
    ("mlir/test/Dialect/ControlFlow/invalid.mlir", "1c2724c082ee08ff877d57782f0daf584c3ef462", 2905),
    ("mlir/test/Dialect/ControlFlow/ops.mlir", "1c2724c082ee08ff877d57782f0daf584c3ef462", 3167),
    ("mlir/test/Dialect/Func/invalid.mlir", "0d6ccf0eaa6fc333acd6288ef40c9c7d8b307b38", 5640),
    ("mlir/test/IR/invalid-func-op.mlir", "45d17e2243e831916d778bcc7dfc4d91a252cfb1", 2680),
    ("mlir/test/IR/invalid-ops.mlir", "f5b0bc86ed431f230796a21f2d6c9335b6aea51d", 4432),
    ("mlir/test/IR/invalid.mlir", "05d405a1a610b7da58e2259d5aa81babef0f0522", 15151),
    ("mlir/test/IR/module-op.mlir", "e7e7fcb743958832f916ac58d48bca1e6e2969e5", 1635),
    ("mlir/test/IR/parser.mlir", "1960b47ba0a3f8c23874284e000e7f9b62ff0463", 60324),
    ("mlir/test/Transforms/canonicalize-block-merge.mlir", "3fa6aafd591758bc19999694270a36a6a8bc7f6d", 7052),
    ("mlir/test/Transforms/canonicalize-dce.mlir", "0eadd0da69e50d6759887d40c54ec062a5a3b04e", 4383),
    ("mlir/test/Transforms/canonicalize.mlir", "672c63520c4d3be2ac75247afed72bd1fcefcb2a", 45299),
    ("mlir/test/Transforms/cse.mlir", "0995662c53bfe18944f633de3366f9af6a8ffaf7", 23340),
    ("mlir/test/Transforms/inlining.mlir", "0868bf33d9d4634206c5479fcce935398d0c6dc9", 11458),
    ("mlir/test/Transforms/test-symbol-dce.mlir", "15d78c98403a392d9f3a971cd9be197e8ecd344a", 4168),
]

__doc__ += "\n".join("  %s  %s (%d chars)" % (c, p, n) for p, c, n in UPSTREAM_FILES) + "\n"

LLVM_BIN = "/usr/lib/llvm-22/bin"
DEFAULT_TESTS_DIR = "/tmp/upstream-mlir-tests"
DEFAULT_NART = os.path.join(os.path.expanduser("~"), ".cache/nart/target/debug/nart-opt")
MAX_JOBS = 2

# mlir-opt splits at every occurrence of the marker, wherever it is on a line.
SPLIT_MARKER = re.compile(r"// -----")
RUN_RE = re.compile(r"//\s*RUN:(.*)$")
PASS, FAIL, CRASH, TIMEOUT = "pass", "fail", "crash", "timeout"


# ----------------------------------------------------------------------------
# Reading test files


def read_run_lines(text):
    """RUN lines of a file, continuations (trailing backslash) joined."""
    runs, cur = [], None
    for line in text.splitlines():
        m = RUN_RE.search(line)
        if not m:
            if cur is not None:  # a dangling continuation ends at a non-RUN line
                runs.append(cur)
                cur = None
            continue
        part = m.group(1).strip()
        if cur is None:
            cur = ""
        if part.endswith("\\"):
            cur += part[:-1] + " "
        else:
            runs.append((cur + part).strip())
            cur = None
    if cur is not None:
        runs.append(cur.strip())
    return runs


def split_chunks(text):
    """[(start_line, chunk_text)] as mlir-opt -split-input-file splits.

    Every occurrence of "// -----" splits (as mlir-opt does, even inside a line
    or after other text); a chunk after a marker starts right after the marker
    text, so it begins with the rest of the marker's line.
    """
    chunks, start = [], 0
    for m in SPLIT_MARKER.finditer(text):
        chunks.append((start, text[start:m.start()]))
        start = m.end()
    chunks.append((start, text[start:]))
    return [(text.count("\n", 0, s) + 1, c) for s, c in chunks]


def split_pipeline(cmd):
    """Split a shell command at unquoted '|' (not '||')."""
    parts, cur, quote, i = [], "", None, 0
    while i < len(cmd):
        ch = cmd[i]
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == "\\" and i + 1 < len(cmd):
            cur += cmd[i:i + 2]
            i += 1
        elif ch == "|":
            if cmd[i + 1:i + 2] == "|":
                raise ValueError("'||' is not supported")
            parts.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    parts.append(cur)
    return [p.strip() for p in parts]


def flag_name(arg):
    return arg.lstrip("-").split("=", 1)[0]


def is_split(args):
    return any(flag_name(a) == "split-input-file" and a.startswith("-") for a in args)


def filecheck_prefixes(args):
    prefixes, i = [], 0
    while i < len(args):
        a = args[i]
        name = flag_name(a) if a.startswith("-") else None
        if name in ("check-prefix", "check-prefixes"):
            if "=" in a:
                val = a.split("=", 1)[1]
            else:
                i += 1
                val = args[i] if i < len(args) else ""
            prefixes += [p for p in val.split(",") if p]
        i += 1
    return prefixes or ["CHECK"]


def prefix_used(prefix, text):
    pat = r"(?<![A-Za-z0-9_-])" + re.escape(prefix) + \
        r"(-(NEXT|SAME|NOT|DAG|LABEL|EMPTY|COUNT-\d+))?(\{LITERAL\})?:"
    return re.search(pat, text) is not None


def pipeline_passes(text):
    """(pass name, option text) of every pass in a textual pass pipeline."""
    out, i, n = [], 0, len(text)

    def parse_list(i, out):
        while i < n:
            while i < n and text[i] in " ,":
                i += 1
            j = i
            while j < n and text[j] not in "{(),":
                j += 1
            name = text[i:j].strip()
            opts = None
            if j < n and text[j] == "{":
                depth, k = 0, j
                while k < n:
                    if text[k] == "{":
                        depth += 1
                    elif text[k] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    k += 1
                opts = text[j + 1:k]
                j = k + 1
            if j < n and text[j] == "(":
                j = parse_list(j + 1, out)  # an op anchor: builtin.module(...)
                if j < n and text[j] == ")":
                    j += 1
            elif name:
                out.append((name, opts))
            i = j
            if i < n and text[i] == ")":
                return i
        return i

    parse_list(0, out)
    return out


def option_names(opts):
    """Names of the options in 'a=1 b={x y} c' (pass option syntax)."""
    names, i, n = [], 0, len(opts or "")
    while i < n:
        while i < n and opts[i] == " ":
            i += 1
        j = i
        while j < n and opts[j] not in " =":
            j += 1
        if j > i:
            names.append(opts[i:j])
        if j < n and opts[j] == "=":
            j += 1
            depth, quote = 0, None
            while j < n:
                c = opts[j]
                if quote:
                    if c == quote:
                        quote = None
                elif c in "'\"":
                    quote = c
                elif c in "{(":
                    depth += 1
                elif c in "})":
                    depth -= 1
                elif c == " " and depth == 0:
                    break
                j += 1
        i = j
    return names


# ----------------------------------------------------------------------------
# What nart-opt accepts


class NartCaps:
    def __init__(self, nart, mlir, workdir, timeout):
        self.nart, self.timeout = nart, timeout
        self.passes = {}  # name -> set of option names
        out = subprocess.run([nart, "--list-passes"], capture_output=True, text=True,
                             timeout=timeout).stdout
        cur = None
        for line in out.splitlines():
            m = re.match(r"^  --([\w.-]+)", line)
            if m:
                cur = m.group(1)
                self.passes[cur] = set()
                continue
            m = re.match(r"^    --([\w.-]+)", line)
            if m and cur:
                self.passes[cur].add(m.group(1))
        # mlir-opt's passes, to tell an unknown pass from an unknown flag
        self.mlir_passes = set()
        try:
            out = subprocess.run([mlir, "--help"], capture_output=True, text=True,
                                 timeout=60).stdout
            for line in out.splitlines():
                m = re.match(r"^      --([\w.-]+)", line)
                if m:
                    self.mlir_passes.add(m.group(1))
        except Exception:
            pass
        self.probe_file = os.path.join(workdir, "probe.mlir")
        with open(self.probe_file, "w") as f:
            f.write("module {\n}\n")
        self.probed = {}

    def probe(self, arg):
        """None when nart-opt accepts `arg` on an empty module, else a reason."""
        if arg not in self.probed:
            try:
                p = subprocess.run([self.nart, arg, self.probe_file], capture_output=True,
                                   text=True, timeout=self.timeout)
                ok, err = p.returncode == 0, p.stderr
            except subprocess.TimeoutExpired:
                ok, err = False, "timeout"
            reason = None
            if not ok:
                name = flag_name(arg)
                m = re.search(r"no such option '([^']*)' \(in the options of pass '([^']*)'\)", err)
                m2 = re.search(r"'([^']*)' does not refer to a registered pass", err)
                if m:
                    reason = "pass option not in nart: %s{%s}" % (m.group(2), m.group(1))
                elif m2:
                    reason = "pass not in nart: %s" % m2.group(1)
                elif "unknown command line argument" in err:
                    if name in self.mlir_passes:
                        reason = "pass not in nart: %s" % name
                    else:
                        reason = "flag not accepted by nart: -%s" % name
                else:
                    first = next((l for l in err.splitlines() if l.strip()), "")
                    reason = "flag rejected by nart: %s (%s)" % (arg, first[:80])
            self.probed[arg] = reason
        return self.probed[arg]

    def skip_reason(self, args):
        """Why nart cannot attempt an mlir-opt invocation with these args, or None."""
        i = 0
        while i < len(args):
            a = args[i]
            if not a.startswith("-") or a == "-":
                i += 1
                continue
            name = flag_name(a)
            if name == "o":
                i += 2
                continue
            value = a.split("=", 1)[1] if "=" in a else None
            if name == "pass-pipeline" and value is None and i + 1 < len(args):
                value = args[i + 1]
                a = "--pass-pipeline=" + value
                i += 1
            if name.startswith("test-"):
                return "test pass: -%s" % name
            if name == "pass-pipeline":
                for pname, opts in pipeline_passes(value or ""):
                    if pname.startswith("test-"):
                        return "test pass: %s" % pname
                    if pname not in self.passes:
                        return "pass not in nart: %s" % pname
                    for o in option_names(opts):
                        if o not in self.passes[pname]:
                            return "pass option not in nart: %s{%s}" % (pname, o)
            elif name in self.passes:
                for o in option_names(unquote(value) if value else ""):
                    if o not in self.passes[name]:
                        return "pass option not in nart: %s{%s}" % (name, o)
            r = self.probe(a)
            if r:
                return r
            i += 1
        return None


def unquote(s):
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


# ----------------------------------------------------------------------------
# Planning cases


class Stage:
    def __init__(self, kind, args, negate=False, merge_stderr=False):
        self.kind, self.args, self.negate, self.merge_stderr = kind, args, negate, merge_stderr


def parse_run(run):
    """[Stage] for a RUN line, or raise ValueError for what is not supported."""
    stages = []
    for seg in split_pipeline(run):
        if not seg:
            raise ValueError("empty pipeline stage")
        for bad in ("&&", ";", "||"):
            if bad in seg.replace("'%s'" % bad, ""):
                # conservative: any such token outside quotes is unsupported
                toks = shlex.split(seg)
                if bad in toks:
                    raise ValueError("shell syntax '%s'" % bad)
        toks = shlex.split(seg)
        negate = False
        while toks and toks[0] == "not":
            negate = not negate
            toks = toks[1:]
        merge = False
        if "2>&1" in toks:
            merge = True
            toks = [t for t in toks if t != "2>&1"]
        for t in toks:
            if t in (">", "<", "2>", ">>") or t.startswith(">") or t.startswith("<"):
                raise ValueError("redirection '%s'" % t)
        if not toks:
            raise ValueError("empty command")
        cmd = toks[0]
        if cmd == "mlir-opt":
            kind = "tool"
        elif cmd == "FileCheck":
            kind = "filecheck"
        else:
            raise ValueError("command '%s'" % cmd)
        stages.append(Stage(kind, toks[1:], negate, merge))
    return stages


def plan_file(rel, path, caps):
    """Cases of one file: dicts with run/chunk numbers and a skip reason or stages."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    runs = read_run_lines(text)
    chunks = split_chunks(text)
    cases = []
    for ri, run in enumerate(runs, 1):
        reason, stages = None, None
        try:
            stages = parse_run(run)
        except ValueError as e:
            reason = "unsupported RUN syntax: %s" % e
        if stages is not None:
            for st in stages:
                if st.kind == "tool":
                    reason = caps.skip_reason(st.args)
                    if reason:
                        break
        split = stages is not None and any(is_split(st.args) for st in stages if st.kind == "tool")
        if stages is None:
            split = "split-input-file" in run
        units = chunks if split else [(1, text)]
        for ci, (line, chunk) in enumerate(units, 1):
            cases.append({
                "file": rel, "run": ri, "run_line": run, "chunk": ci, "chunks": len(units),
                "line": line, "text": chunk, "stages": stages, "skip": reason,
            })
    return runs, len(chunks), cases


# ----------------------------------------------------------------------------
# Running a case


def is_crash(rc, stderr):
    return rc < 0 or rc >= 101 or "panicked" in stderr


def run_pipeline(stages, tool, filecheck, chunk_path, cwd, timeout):
    """Run one case's pipeline with `tool` for mlir-opt.

    Returns (outcome, first stderr line of the failing stage, the check line
    FileCheck quotes when FileCheck is that stage, stderr excerpt).
    """
    chunk_text = open(chunk_path, encoding="utf-8").read()
    argvs = []
    for st in stages:
        args = [chunk_path if a == "%s" else a.replace("%s", chunk_path) for a in st.args]
        args = [a.replace("%S", cwd).replace("%t", os.path.join(cwd, "tmp")) for a in args]
        if st.kind == "tool":
            argvs.append([tool] + args)
        else:
            prefixes = filecheck_prefixes(st.args)
            used = [p for p in prefixes if prefix_used(p, chunk_text)]
            if not used:
                argvs.append(None)  # nothing to check in this chunk: drain input
            else:
                if len(used) < len(prefixes) and "--allow-unused-prefixes" not in args:
                    args.append("--allow-unused-prefixes")
                argvs.append([filecheck] + args)
    procs, errfiles = [], []
    prev_out = subprocess.DEVNULL
    start = time.monotonic()
    try:
        for k, (st, argv) in enumerate(zip(stages, argvs)):
            last = k == len(stages) - 1
            errf = tempfile.TemporaryFile(dir=cwd)
            errfiles.append(errf)
            if argv is None:
                argv = ["cat"]
            stdout = subprocess.DEVNULL if last else subprocess.PIPE
            p = subprocess.Popen(argv, stdin=prev_out, stdout=stdout,
                                 stderr=subprocess.STDOUT if st.merge_stderr and not last else errf,
                                 cwd=cwd, start_new_session=True)
            if prev_out not in (subprocess.DEVNULL, None):
                prev_out.close()
            prev_out = p.stdout if not last else None
            procs.append(p)
        timed_out = False
        for p in procs:
            left = timeout - (time.monotonic() - start)
            try:
                p.wait(timeout=max(left, 0.01))
            except subprocess.TimeoutExpired:
                timed_out = True
                break
        if timed_out:
            for p in procs:
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except OSError:
                        pass
            for p in procs:
                p.wait()
            return TIMEOUT, "timeout after %gs" % timeout, "", ""
        outcome, first, check, excerpt = PASS, "", "", ""
        for st, argv, p, errf in zip(stages, argvs, procs, errfiles):
            errf.seek(0)
            err = errf.read().decode("utf-8", "replace")
            rc = p.returncode
            crashed = st.kind == "tool" and is_crash(rc, err)
            ok = (rc != 0) if st.negate else (rc == 0)
            if crashed:
                ok = False
            if not ok and outcome == PASS:
                outcome = CRASH if crashed else FAIL
                lines = [l for l in err.splitlines() if l.strip()]
                first = lines[0] if lines else "(%s exited %d with no stderr)" % (
                    "tool" if st.kind == "tool" else "FileCheck", rc)
                if st.kind == "filecheck" and len(lines) > 1:
                    check = lines[1].strip()
                excerpt = "\n".join(lines[:12])
            elif crashed:
                outcome = CRASH
        return outcome, first, check, excerpt
    finally:
        for f in errfiles:
            f.close()


def run_case(case, tools, filecheck, workroot, timeout):
    d = os.path.join(workroot, "f%03d" % case["fidx"], "r%d_c%d" % (case["run"], case["chunk"]))
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, os.path.basename(case["file"]))
    with open(path, "w", encoding="utf-8") as f:
        f.write(case["text"])
    res = {}
    for name, tool in tools:
        out, first, check, excerpt = run_pipeline(case["stages"], tool, filecheck, path, d,
                                                  timeout)
        res[name] = {"outcome": out, "first_stderr": clean(first, d, case),
                     "check": check, "stderr": clean(excerpt, d, case)}
    shutil.rmtree(d, ignore_errors=True)
    return res


def clean(s, d, case):
    """Replace the temporary chunk path by 'upstream/path#chunk'."""
    return s.replace(os.path.join(d, os.path.basename(case["file"])),
                     "%s#%d" % (case["file"], case["chunk"])).replace(d, "<tmp>")


# ----------------------------------------------------------------------------
# Reporting


def normalize_reason(line):
    s = re.sub(r"^\S+?\.mlir(#\d+)?(:\d+)+:\s*", "", line)
    s = re.sub(r"^within split at \S+ offset :\d+:\d+:\s*", "", s)
    s = re.sub(r"\d+", "N", s)
    return s.strip()[:160]


def summarize(files, cases):
    per = collections.OrderedDict()
    for rel, info in files.items():
        per[rel] = dict(runs=info["runs"], chunks=info["chunks"], cases=0, skipped=0,
                        ran=0, mlir_ok=0, nart_ok=0, nart_only=0, nart_crash=0,
                        mlir_crash=0, mlir_timeout=0, nart_timeout=0, missing=info["missing"])
    for c in cases:
        s = per[c["file"]]
        s["cases"] += 1
        if c["skip"]:
            s["skipped"] += 1
            continue
        s["ran"] += 1
        m, n = c["result"]["mlir-opt"]["outcome"], c["result"]["nart-opt"]["outcome"]
        s["mlir_ok"] += m == PASS
        s["nart_ok"] += m == PASS and n == PASS
        s["nart_only"] += m != PASS and n == PASS
        s["nart_crash"] += n == CRASH
        s["mlir_crash"] += m == CRASH
        s["mlir_timeout"] += m == TIMEOUT
        s["nart_timeout"] += n == TIMEOUT
    tot = collections.Counter()
    for s in per.values():
        for k, v in s.items():
            if isinstance(v, (int, bool)) and not isinstance(v, bool):
                tot[k] += v
    return per, dict(tot)


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    - "


def print_table(per, tot, out):
    hdr = ("file", "RUN", "chunks", "cases", "skip", "mlir ok", "nart ok", "%", "nart-only",
           "crash", "timeout m/n")
    rows = []
    for rel, s in per.items():
        name = rel[len("mlir/test/"):] if rel.startswith("mlir/test/") else rel
        if s["missing"]:
            rows.append((name, "-", "-", "-", "-", "-", "-", "missing", "-", "-", "-"))
            continue
        rows.append((name, s["runs"], s["chunks"], s["cases"], s["skipped"], s["mlir_ok"],
                     s["nart_ok"], pct(s["nart_ok"], s["mlir_ok"]), s["nart_only"],
                     s["nart_crash"], "%d/%d" % (s["mlir_timeout"], s["nart_timeout"])))
    rows.append(("TOTAL", tot.get("runs", 0), tot.get("chunks", 0), tot.get("cases", 0),
                 tot.get("skipped", 0), tot.get("mlir_ok", 0), tot.get("nart_ok", 0),
                 pct(tot.get("nart_ok", 0), tot.get("mlir_ok", 0)), tot.get("nart_only", 0),
                 tot.get("nart_crash", 0),
                 "%d/%d" % (tot.get("mlir_timeout", 0), tot.get("nart_timeout", 0))))
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    def fmt(r):
        return "  ".join(str(v).ljust(widths[i]) if i == 0 else str(v).rjust(widths[i])
                         for i, v in enumerate(r))
    print(fmt(hdr), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in rows[:-1]:
        print(fmt(r), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    print(fmt(rows[-1]), file=out)


def failures(cases):
    """Cases mlir-opt passes and nart-opt does not, plus every nart crash/timeout."""
    out = []
    for c in cases:
        if c["skip"]:
            continue
        m, n = c["result"]["mlir-opt"]["outcome"], c["result"]["nart-opt"]["outcome"]
        if (m == PASS and n != PASS) or n in (CRASH, TIMEOUT):
            out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*",
                    help="test files (upstream relative paths or suffixes); default: all above")
    ap.add_argument("--tests-dir", default=DEFAULT_TESTS_DIR)
    ap.add_argument("--nart-opt", default=DEFAULT_NART)
    ap.add_argument("--mlir-opt", default=os.path.join(LLVM_BIN, "mlir-opt"))
    ap.add_argument("--filecheck", default=os.path.join(LLVM_BIN, "FileCheck"))
    ap.add_argument("--jobs", "-j", type=int, default=MAX_JOBS,
                    help="parallel cases (at most %d)" % MAX_JOBS)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per pipeline run")
    ap.add_argument("--json", metavar="PATH", help="write results as JSON ('-' for stdout)")
    ap.add_argument("--show-failures", metavar="FILE", action="append", default=[],
                    help="list failing cases of FILE (a suffix of its upstream path)")
    ap.add_argument("--top", type=int, default=10, metavar="N",
                    help="most common nart failure reasons to list (0: none)")
    args = ap.parse_args()

    for tool in (args.nart_opt, args.mlir_opt, args.filecheck):
        if not os.access(tool, os.X_OK):
            sys.exit("error: %s is not an executable" % tool)
    jobs = max(1, min(args.jobs, MAX_JOBS))

    selected = [p for p, _, _ in UPSTREAM_FILES]
    if args.files:
        chosen = []
        for f in args.files:
            f = f.replace(os.sep, "/")
            hits = [p for p in selected if p == f or p.endswith("/" + f.lstrip("/")) or f.endswith(p)]
            if not hits:
                sys.exit("error: %s is not one of the scorecard's files (see --help)" % f)
            chosen += [h for h in hits if h not in chosen]
        selected = [p for p in selected if p in chosen]

    workroot = tempfile.mkdtemp(prefix="nart-scorecard-")
    try:
        caps = NartCaps(args.nart_opt, args.mlir_opt, workroot, args.timeout)
        files, cases = collections.OrderedDict(), []
        for fidx, rel in enumerate(selected):
            path = os.path.join(args.tests_dir, rel)
            if not os.path.exists(path):
                files[rel] = {"runs": 0, "chunks": 0, "missing": True, "other_version": False}
                continue
            runs, nchunks, fcases = plan_file(rel, path, caps)
            with open(path, encoding="utf-8") as f:
                length = len(f.read())
            expected = {p: n for p, _, n in UPSTREAM_FILES}[rel]
            files[rel] = {"runs": len(runs), "chunks": max([c["chunks"] for c in fcases] or [0]),
                          "missing": False, "run_lines": runs,
                          "other_version": length != expected, "chars": length}
            for c in fcases:
                c["fidx"] = fidx
            cases += fcases

        tools = [("mlir-opt", args.mlir_opt), ("nart-opt", args.nart_opt)]
        todo = [c for c in cases if not c["skip"]]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = {ex.submit(run_case, c, tools, args.filecheck, workroot, args.timeout): c
                    for c in todo}
            for fut in concurrent.futures.as_completed(futs):
                futs[fut]["result"] = fut.result()
    finally:
        shutil.rmtree(workroot, ignore_errors=True)

    per, tot = summarize(files, cases)
    fails = failures(cases)
    out = sys.stdout if args.json != "-" else sys.stderr

    print("nart-opt: %s" % args.nart_opt, file=out)
    print("mlir-opt: %s   FileCheck: %s" % (args.mlir_opt, args.filecheck), file=out)
    print("tests:    %s (%d files)" % (args.tests_dir, len(selected)), file=out)
    print(file=out)
    print_table(per, tot, out)

    missing = [r for r, i in files.items() if i["missing"]]
    if missing:
        print("\nMissing test files (not counted): %s" % ", ".join(missing), file=out)
    other = [r for r, i in files.items() if i.get("other_version")]
    if other:
        print("\nNot the measured version (length differs from the one recorded in --help): %s"
              % ", ".join(other), file=out)

    reasons = collections.OrderedDict()
    for c in cases:
        if c["skip"]:
            r = reasons.setdefault(c["skip"], [0, []])
            r[0] += 1
            if c["file"] not in r[1]:
                r[1].append(c["file"])
    if reasons:
        print("\nSkipped cases by reason:", file=out)
        for r, (n, fs) in sorted(reasons.items(), key=lambda kv: (-kv[1][0], kv[0])):
            print("  %4d  %s  [%s]" % (n, r, ", ".join(f.split("/")[-2] + "/" + f.split("/")[-1]
                                                         for f in fs)), file=out)

    crashes = [c for c in cases if not c["skip"] and CRASH in
               (c["result"]["mlir-opt"]["outcome"], c["result"]["nart-opt"]["outcome"])]
    timeouts = [c for c in cases if not c["skip"] and TIMEOUT in
                (c["result"]["mlir-opt"]["outcome"], c["result"]["nart-opt"]["outcome"])]
    for title, lst in (("Crashes", crashes), ("Timeouts", timeouts)):
        if lst:
            print("\n%s:" % title, file=out)
            for c in lst:
                m, n = c["result"]["mlir-opt"], c["result"]["nart-opt"]
                print("  %s chunk %d (line %d) RUN %d: mlir-opt %s, nart-opt %s: %s" % (
                    c["file"], c["chunk"], c["line"], c["run"], m["outcome"], n["outcome"],
                    (n["first_stderr"] if n["outcome"] != PASS else m["first_stderr"])[:200]),
                    file=out)

    if args.top > 0 and fails:
        groups = collections.OrderedDict()
        for c in fails:
            key = normalize_reason(c["result"]["nart-opt"]["first_stderr"])
            groups.setdefault(key, []).append(c)
        print("\nMost common nart-opt failures on cases mlir-opt passes (first stderr line):",
              file=out)
        for key, lst in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:args.top]:
            ex = lst[0]
            print("  %4d  %s\n        e.g. %s chunk %d (line %d) RUN %d" % (
                len(lst), key, ex["file"], ex["chunk"], ex["line"], ex["run"]), file=out)

    for want in args.show_failures:
        w = want.replace(os.sep, "/")
        rels = [r for r in files if r == w or r.endswith("/" + w.lstrip("/")) or w.endswith(r)]
        if not rels:
            print("\n--show-failures %s: not one of the measured files" % want, file=out)
            continue
        for rel in rels:
            lst = [c for c in fails if c["file"] == rel]
            print("\nFailures in %s (%d):" % (rel, len(lst)), file=out)
            for c in lst:
                n = c["result"]["nart-opt"]
                print("  chunk %d (line %d) RUN %d [%s]: %s%s" % (
                    c["chunk"], c["line"], c["run"], n["outcome"], n["first_stderr"],
                    ("\n      " + n["check"]) if n["check"] else ""), file=out)

    if args.json:
        data = {
            "nart_opt": args.nart_opt, "mlir_opt": args.mlir_opt, "filecheck": args.filecheck,
            "tests_dir": args.tests_dir, "timeout_s": args.timeout,
            "upstream_commits": {p: c for p, c, _ in UPSTREAM_FILES if p in files},
            "totals": tot,
            "files": {r: dict(per[r], run_lines=files[r].get("run_lines", [])) for r in per},
            "skipped_by_reason": {r: v[0] for r, v in reasons.items()},
            "cases": [{
                "file": c["file"], "run": c["run"], "chunk": c["chunk"], "line": c["line"],
                "skip": c["skip"],
                "mlir_opt": None if c["skip"] else c["result"]["mlir-opt"],
                "nart_opt": None if c["skip"] else c["result"]["nart-opt"],
            } for c in cases],
        }
        text = json.dumps(data, indent=1, sort_keys=False)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
