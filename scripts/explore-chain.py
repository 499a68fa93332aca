#!/usr/bin/env python3
"""Print a P-LLVM program of N diamond+loop units in a chain, for `pllvm
explore` (BENCHMARKS.md, "Exhaustive exploration of greedy schedules").

    scripts/explore-chain.py N    # N units: 5N+2 blocks, 4N+2 named values

Unit k: block hK branches on `tid < 1` (divergent: lane 0 goes to lK, the other
lanes to rK), both sides meet at jK, and the self-loop LK counts iK up to the
argument `%x` before going on to the next unit. Run it with the loop bound as
an argument:

    pllvm explore chain.ll --threads 2 --arg x=3

The explored states grow linearly with N (each unit adds the interleavings of
its two sides and of the loop's iterations), while every state holds all
4N+2 values: the program family on which a per-state cost that grows with the
program shows up as quadratic time.
"""

import sys


def chain(units):
    out = ["define i32 @f(i32 %x) {", "entry:",
           "  %tid = call i32 @pllvm.thread_id()", "  br label %h0"]
    for k in range(units):
        out += [f"h{k}:",
                f"  %c{k} = icmp slt i32 %tid, 1",
                f"  br i1 %c{k}, label %l{k}, label %r{k}",
                f"l{k}:", f"  br label %j{k}",
                f"r{k}:", f"  br label %j{k}",
                f"j{k}:", f"  br label %L{k}",
                f"L{k}:",
                f"  %i{k} = phi i32 [ 0, %j{k} ], [ %n{k}, %L{k} ]",
                f"  %n{k} = add i32 %i{k}, 1",
                f"  %e{k} = icmp sge i32 %n{k}, %x",
                f"  br i1 %e{k}, label %h{k + 1}, label %L{k}"]
    out += [f"h{units}:", "  ret i32 %x", "}"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    sys.stdout.write(chain(int(sys.argv[1])))
