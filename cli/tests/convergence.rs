//! `pllvm run --convergence` end to end: the LLVM document's tables for the
//! maximal converged-with relation, the lock-step table beside it, and the
//! disagreements marked `!`.

use crate::common;
use common::{corpus, pllvm};

use std::io::Write;

/// The rows of the block table whose first word (after a possible `!`) is `block`.
fn row<'a>(out: &'a str, block: &str) -> &'a str {
    out.lines()
        .find(|l| {
            l.trim_start_matches('!').split_whitespace().next() == Some(block)
                && l.contains(" | ")
                && !l.starts_with("thread")
                && l.matches('|').count() == 6
        })
        .unwrap_or("")
}

// "Diverged Paths reaching a Cycle": lane 0 enters the cycle at P, lane 1 at R.
// The documented DFS makes P the header; lock step meets at R (R is forward
// reachable from P, so lane 1 waits there), which is the convergence of the
// hierarchy with headers R and S, not of the documented one.
#[test]
fn diverged_paths_reaching_a_cycle_show_lock_step_against_header_p() {
    let o = pllvm(&[
        "run",
        &corpus("divergence/llvm-diverged-paths-reaching-cycle.ll"),
        "--threads",
        "2",
        "--convergence",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("documented DFS (headers P)"), "{out}");
    assert!(
        out.contains("hierarchies compared: 2 (headers P; headers R, S)"),
        "{out}"
    );
    // The document's first table (P is the header), columns in convergence order.
    let table: Vec<String> = out
        .lines()
        .skip_while(|l| !l.starts_with("thread"))
        .skip(1)
        .take(2)
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        table,
        [
            "0 | Entry | | | P | Q | R | S | P | Q | | S | Exit",
            "1 | Entry | R | S | P | Q | | S | P | Q | R | S | Exit",
        ]
    );
    // Entry and Exit are in no cycle: m-converged, and lock step agrees.
    assert!(row(&out, "Entry").starts_with("  Entry"), "{out}");
    assert!(row(&out, "Entry").ends_with("same"), "{out}");
    // R: lock step ran lane 0's R with lane 1's first R, which header P keeps apart.
    let r = row(&out, "R");
    assert!(r.starts_with("! R"), "{out}");
    assert!(r.contains("| no "), "{r}");
    assert!(
        r.contains("joined lane 0 #4 and lane 1 #2, not converged"),
        "{r}"
    );
    assert!(out.contains("disagreements: 4"), "{out}");
}

// A loop that exits at its header: the `highest` greedy schedule runs the exit X
// for lane 0 while lane 1 is still in the loop (its latch reaches X only through
// the back edge, Def. 15-17), so lock step runs apart two instances of a block in
// no cycle, which the document calls converged.
#[test]
fn lock_step_may_run_converged_instances_apart() {
    let dir = std::env::temp_dir().join(format!("pllvm-conv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("exit-at-header.ll");
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(
        b"define i32 @f() {
Entry:
  %t = call i32 @pllvm.thread_id()
  br label %H
H:
  %i = phi i32 [ 0, %Entry ], [ %i1, %L ]
  %c = icmp ult i32 %i, %t
  br i1 %c, label %L, label %X
L:
  %i1 = add i32 %i, 1
  br label %H
X:
  ret i32 %i
}
",
    )
    .expect("write");
    let file = path.display().to_string();
    let highest = pllvm(&[
        "run",
        &file,
        "--threads",
        "2",
        "--sched",
        "highest",
        "--convergence",
    ]);
    let out = String::from_utf8_lossy(&highest.stdout).to_string();
    assert!(out.contains("schedule (highest): Entry,H,X,L,H,X"), "{out}");
    let x = row(&out, "X");
    assert!(x.starts_with("! X"), "{out}");
    assert!(x.contains("| yes "), "{x}");
    assert!(
        x.contains("converged lane 0 #3 and lane 1 #5, run apart"),
        "{x}"
    );
    // The lowest block index keeps the lanes together: no disagreement.
    let lowest = pllvm(&["run", &file, "--threads", "2", "--convergence"]);
    let out = String::from_utf8_lossy(&lowest.stdout).to_string();
    assert!(out.contains("disagreements: 0"), "{out}");
    assert!(row(&out, "X").ends_with("same"), "{out}");
}
