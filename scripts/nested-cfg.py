#!/usr/bin/env python3
"""Print a P-LLVM program of nested control flow at depth D (BENCHMARKS.md,
"Nested control flow").

    scripts/nested-cfg.py ifs D    # D nested ifs on the thread id: 2D+3 blocks
    scripts/nested-cfg.py loops D  # D nested loops, trip counts from the thread id

`ifs`: block iK tests `tid > K` and either enters iK+1 or skips to jK, where
the value of the level joins (a phi); the innermost block is the body. Every
branch is divergent and every jK is a sync join (thesis Ch. 7).

`loops`: header hK counts iK and enters hK+1; the innermost body falls into the
latch lD-1; latch lK exits to the latch of the loop around it while `iK.n <
tid`, so every loop is divergent (thesis §9.1) and every exit is temporally
divergent.
"""

import sys


def nested_ifs(depth):
    out = ["define i32 @nested(i32 %n) {", "entry:",
           "  %tid = call i32 @pllvm.thread_id()", "  br label %i0"]
    for k in range(depth):
        out += [f"i{k}:",
                f"  %c{k} = icmp sgt i32 %tid, {k}",
                f"  br i1 %c{k}, label %i{k + 1}, label %j{k}"]
    out += [f"i{depth}:", "  %body = add i32 %n, 1", f"  br label %j{depth - 1}"]
    inner = "%body"
    for k in reversed(range(depth)):
        from_inner = f"%i{k + 1}" if k == depth - 1 else f"%j{k + 1}"
        nxt = "exit" if k == 0 else f"j{k - 1}"
        out += [f"j{k}:",
                f"  %x{k} = phi i32 [ {inner}, {from_inner} ], [ {k}, %i{k} ]",
                f"  br label %{nxt}"]
        inner = f"%x{k}"
    out += ["exit:", f"  ret i32 {inner}", "}"]
    return "\n".join(out) + "\n"


def nested_loops(depth):
    out = ["define i32 @nested(i32 %n) {", "entry:",
           "  %tid = call i32 @pllvm.thread_id()", "  br label %h0"]
    for k in range(depth):
        pred = "%entry" if k == 0 else f"%h{k - 1}"
        out += [f"h{k}:",
                f"  %i{k} = phi i32 [ 0, {pred} ], [ %i{k}.n, %l{k} ]",
                f"  br label %{'body' if k == depth - 1 else f'h{k + 1}'}"]
    out += ["body:", "  %v = add i32 %n, 1", f"  br label %l{depth - 1}"]
    for k in reversed(range(depth)):
        out += [f"l{k}:",
                f"  %i{k}.n = add i32 %i{k}, 1",
                f"  %c{k} = icmp slt i32 %i{k}.n, %tid",
                f"  br i1 %c{k}, label %h{k}, label %{'exit' if k == 0 else f'l{k - 1}'}"]
    out += ["exit:", "  ret i32 %i0.n", "}"]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("ifs", "loops"):
        sys.exit("usage: nested-cfg.py ifs|loops DEPTH")
    depth = int(sys.argv[2])
    if depth < 1:
        sys.exit("nested-cfg.py: DEPTH must be at least 1")
    gen = nested_ifs if sys.argv[1] == "ifs" else nested_loops
    sys.stdout.write(gen(depth))


if __name__ == "__main__":
    main()
