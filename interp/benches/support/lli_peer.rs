//! The peer of the interpreter benchmarks: `lli-19 -force-interpreter` (LLVM's own
//! IR interpreter) running a kernel and its driver, timed best of `repeat`.
//! Shared by `interp_vs_lli` and `grid_launch`.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `program` (LLVM IR with a `main` that prints a checksum) under
/// `lli-19 -force-interpreter` `repeat` times: the best time and what it printed.
pub(crate) fn time_lli(program: &str, repeat: usize) -> (Duration, String) {
    let path = std::env::temp_dir().join(format!("pllvm-lli-bench-{}.ll", std::process::id()));
    std::fs::write(&path, program).expect("write lli input");
    let mut best = Duration::MAX;
    let mut printed = String::new();
    for _ in 0..repeat {
        let start = Instant::now();
        let out = Command::new("lli-19")
            .arg("-force-interpreter")
            .arg(&path)
            .output()
            .expect("lli-19 not found: apt-get install llvm-19");
        best = best.min(start.elapsed());
        assert!(out.status.success(), "lli-19 failed");
        printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    }
    let _ = std::fs::remove_file(&path);
    (best, printed)
}
