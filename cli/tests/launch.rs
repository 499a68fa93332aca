//! `pllvm run --grid` end to end (docs/launch.md): thread
//! ids of the targets' intrinsics, work-groups, the last thread array with
//! fewer lanes, buffers in and out, dumps as text, JSON and raw bytes, races
//! between thread arrays, results independent of W and of the number of jobs,
//! and one JSON document per run, parsed back.

use crate::common;
use common::{code, pllvm, stderr, stdout, temp_file};

fn kernel(name: &str) -> String {
    format!("{}/tests/launch/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn floats(values: impl Iterator<Item = f32>) -> Vec<u8> {
    values.flat_map(f32::to_le_bytes).collect()
}

fn json(o: &std::process::Output) -> serde_json::Value {
    assert!(
        code(o) == 0 || code(o) == 1,
        "exit {}: {}",
        code(o),
        stderr(o)
    );
    serde_json::from_str(&stdout(o))
        .unwrap_or_else(|e| panic!("not one JSON document ({e}):\n{}", stdout(o)))
}

/// saxpy over 1000 threads: the dump equals a·x + y computed here, for every W,
/// group size and number of jobs (results gathered in thread order).
#[test]
fn saxpy_is_the_same_whatever_w_groups_and_jobs() {
    let n = 1000;
    let x = temp_file("launch_x.bin", floats((0..n).map(|i| i as f32 * 0.5)));
    let y = temp_file("launch_y.bin", floats((0..n).map(|i| 1000.0 - i as f32)));
    // One more thread than elements: the last thread's guard fails.
    let expect: Vec<f32> = (0..n)
        .map(|i| 3.0 * (i as f32 * 0.5) + (1000.0 - i as f32))
        .collect();
    let mut seen = Vec::new();
    for (w, g, jobs) in [
        ("1", "1", "1"),
        ("32", "64", "2"),
        ("7", "7", "2"),
        ("32", "1024", "1"),
        ("64", "128", "2"),
    ] {
        let bx = format!("x=f32:{x}");
        let by = format!("y=f32:{y}");
        let o = pllvm(&[
            "run",
            &kernel("saxpy.ll"),
            "--grid",
            "1001",
            "--threads",
            w,
            "--group",
            g,
            "--jobs",
            jobs,
            "--buffer",
            &bx,
            "--buffer",
            &by,
            "--arg",
            "a=3",
            "--arg",
            "3=1000",
            "--dump",
            "y",
            "--json",
        ]);
        let doc = json(&o);
        assert_eq!(doc["outcome"], "returned", "{}", stderr(&o));
        assert_eq!(
            doc["grid"]["arrays"],
            1001usize.div_ceil(w.parse::<usize>().unwrap())
        );
        let got: Vec<f32> = doc["dumps"]["y"]["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_f64().expect("number") as f32)
            .collect();
        assert_eq!(got, expect, "W={w} G={g} jobs={jobs}");
        assert_eq!(doc["races"]["count"], 0);
        seen.push(got);
    }
}

/// Thread ids count within a work-group, the group id and the global id
/// (`--lane-id`) are right, and horizontal builtins range over one array, so
/// the last array (2 of 4 lanes) counts 2.
#[test]
fn ids_groups_and_the_short_last_array() {
    let o = pllvm(&[
        "run",
        &kernel("ids.ll"),
        "--grid",
        "10",
        "--threads",
        "4",
        "--group",
        "8",
        "--buffer",
        "out=i32[10]",
        "--buffer",
        "lanes=i32[10]",
        "--lane-id",
        "gid",
        "--dump",
        "out",
        "--dump",
        "lanes",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("3 thread arrays of 4 lanes (the last of 2)"),
        "{out}"
    );
    assert!(
        out.contains("result: [0, 1, 2, 3, 4, 5, 6, 7, 1000, 1001]"),
        "{out}"
    );
    assert!(out.contains("out: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"), "{out}");
    assert!(
        out.contains("lanes: [4, 4, 4, 4, 4, 4, 4, 4, 2, 2]"),
        "{out}"
    );
}

/// Ranges give one value per thread; positions name parameters.
#[test]
fn ranges_and_positions() {
    let o = pllvm(&[
        "run",
        &kernel("ids.ll"),
        "--grid",
        "6",
        "--threads",
        "4",
        "--buffer",
        "0=i32[6]",
        "--buffer",
        "1=i32[6]",
        "--arg",
        "2=0..6",
        "--dump",
        "0",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("0: [0, 1, 2, 3, 4, 5]"),
        "{}",
        stdout(&o)
    );
    // A range of the wrong length names both counts and the convention.
    let o = pllvm(&[
        "run",
        &kernel("ids.ll"),
        "--grid",
        "6",
        "--threads",
        "4",
        "--buffer",
        "out=i32[6]",
        "--buffer",
        "lanes=i32[6]",
        "--arg",
        "gid=0..5",
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("5 values given for 6 threads"),
        "{}",
        stderr(&o)
    );
    // Inclusive ranges work without a grid too (one value per lane).
    let o = pllvm(&[
        "run",
        &kernel("ids.ll"),
        "--threads",
        "3",
        "--buffer",
        "out=i32[3]",
        "--buffer",
        "lanes=i32[3]",
        "--arg",
        "gid=0..=2",
        "--dump",
        "out",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("out: [0, 1, 2]"), "{}", stdout(&o));
}

/// Writes of different arrays to one byte are reported, with both values, and
/// the later array's write is kept; equal values are a race too but do not fail.
#[test]
fn races_between_arrays_are_reported_and_merged_in_array_order() {
    let o = pllvm(&[
        "run",
        &kernel("race.ll"),
        "--grid",
        "8",
        "--threads",
        "1",
        "--jobs",
        "2",
        "--buffer",
        "cell=i32[2]",
        "--lane-id",
        "tid",
        "--dump",
        "cell",
        "--json",
    ]);
    assert_eq!(code(&o), 1, "different values race: {}", stderr(&o));
    let doc = json(&o);
    assert_eq!(doc["dumps"]["cell"]["values"], serde_json::json!([3, 7]));
    // Thread 0 writes 0 over 0: no change, not seen (docs/launch.md).
    assert_eq!(doc["races"]["count"], 5);
    assert_eq!(doc["races"]["conflicting"], 5);
    assert_eq!(doc["races"]["listed"][0]["first"]["array"], 1);
    assert_eq!(doc["races"]["listed"][0]["then"]["array"], 2);
    assert!(stderr(&o).contains(
        "race: cell byte 0: written by thread array 1 (0x01) and by thread array 2 (0x02, kept)"
    ));
    // Within one array the same stores are a conflicting scatter (undefined).
    let o = pllvm(&[
        "run",
        &kernel("race.ll"),
        "--grid",
        "8",
        "--threads",
        "4",
        "--buffer",
        "cell=i32[2]",
        "--lane-id",
        "tid",
    ]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("outcome: undefined"), "{}", stdout(&o));
    let o = pllvm(&[
        "run",
        &kernel("same.ll"),
        "--grid",
        "4",
        "--threads",
        "2",
        "--buffer",
        "flag=i32[1]",
        "--dump",
        "flag",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("races: 1 bytes written by two thread arrays (0 with different values")
    );
}

/// `--dump NAME=FILE` writes raw little-endian bytes.
#[test]
fn raw_dumps_and_buffer_files_round_trip() {
    let x = temp_file("launch_rt_x.bin", floats((0..5).map(|i| i as f32)));
    let y = temp_file("launch_rt_y.bin", floats((0..5).map(|_| 0.5)));
    let out = temp_file("launch_rt_out.bin", b"");
    let (bx, by, dy) = (
        format!("x=f32[5]:{x}"),
        format!("y=f32:{y}"),
        format!("y={out}"),
    );
    let o = pllvm(&[
        "run",
        &kernel("saxpy.ll"),
        "--grid",
        "5",
        "--threads",
        "2",
        "--buffer",
        &bx,
        "--buffer",
        &by,
        "--arg",
        "a=2",
        "--arg",
        "n=5",
        "--dump",
        &dy,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("y: 20 bytes written to"),
        "{}",
        stdout(&o)
    );
    let bytes = std::fs::read(&out).expect("dump file");
    assert_eq!(bytes, floats((0..5).map(|i| 2.0 * i as f32 + 0.5)));
}

/// Bad launches are clear errors (exit 2 for the command line), never panics.
#[test]
fn bad_launches_are_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--grid", "0"], "`0` is not a positive integer"),
        (&["--grid", "20000000"], "a grid has 1 to"),
        (&["--grid", "4096,4096,2"], "a grid has 1 to"),
        (
            &["--grid", "2,2,2,2"],
            "a launch has one to three dimensions",
        ),
        (&["--grid", "4,"], "`4,` has an empty size"),
        (
            &["--grid", "8", "--threads", "4", "--group", "6"],
            "multiple of the thread array's 4 lanes",
        ),
        (
            &["--grid", "8", "--trace", "table"],
            "--trace follows one thread array",
        ),
        (
            &["--grid", "8", "--buffer", "q=i32[8]"],
            "--buffer q: @saxpy has no such parameter",
        ),
        (
            &["--grid", "8", "--buffer", "a=i32[8]"],
            "parameter %a is a float, not a pointer",
        ),
        (
            &["--grid", "8", "--buffer", "x=f33[8]"],
            "'f33' is not a buffer element type",
        ),
        (
            &["--grid", "8", "--buffer", "x=f32:/nonexistent.bin"],
            "cannot read /nonexistent.bin",
        ),
        (&["--grid", "8", "--dump", "zz"], "--dump zz: no buffer zz"),
        (
            &["--grid", "8", "--sched", "interactive"],
            "a launch runs lowest",
        ),
        (&["--grid", "8", "--jobs", "0"], "0"),
        (
            &["--json", "--trace", "table"],
            "--json prints one JSON document",
        ),
    ];
    for (flags, message) in cases {
        let mut args = vec!["run", "K"];
        let k = kernel("saxpy.ll");
        args[1] = &k;
        args.extend_from_slice(flags);
        if !flags.contains(&"--buffer") {
            args.extend_from_slice(&["--buffer", "x=f32[8]", "--buffer", "y=f32[8]"]);
        }
        let o = pllvm(&args);
        assert!(matches!(code(&o), 1 | 2), "{flags:?}: exit {}", code(&o));
        assert!(stderr(&o).contains(message), "{flags:?}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("panicked"),
            "{flags:?}: {}",
            stderr(&o)
        );
    }
}

/// `run --json` prints one document whatever else is asked (trace, divergence,
/// convergence, dumps), with human text on stderr only.
#[test]
fn run_json_is_one_document() {
    let k = kernel("ids.ll");
    let base = [
        "run",
        k.as_str(),
        "--threads",
        "3",
        "--buffer",
        "out=i32[3]",
        "--buffer",
        "lanes=i32[3]",
        "--arg",
        "gid=0..3",
    ];
    for extra in [
        &["--json"][..],
        &["--json", "--dump", "out", "--divergence", "--convergence"],
        &["--trace", "json", "--dump", "lanes"],
        &["--json", "--trace", "json", "--values"],
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let o = pllvm(&args);
        let doc = json(&o);
        assert_eq!(doc["schema"], "pllvm-run/1", "{extra:?}");
        assert_eq!(doc["outcome"], "returned", "{extra:?}");
        assert_eq!(
            doc["result"],
            serde_json::json!(["0", "1", "2"]),
            "{extra:?}"
        );
        assert_eq!(
            doc.get("trace").is_some(),
            extra.contains(&"--trace"),
            "{extra:?}"
        );
        if extra.contains(&"out") {
            assert_eq!(doc["dumps"]["out"]["values"], serde_json::json!([0, 1, 2]));
            assert!(doc["divergence"].is_string() && doc["convergence"].is_string());
        }
    }
    // A grid's document, with divergence merged over the arrays.
    let o = pllvm(&[
        "run",
        &k,
        "--grid",
        "9",
        "--threads",
        "4",
        "--buffer",
        "out=i32[9]",
        "--buffer",
        "lanes=i32[9]",
        "--lane-id",
        "gid",
        "--json",
        "--divergence",
    ]);
    let doc = json(&o);
    assert_eq!(doc["grid"]["arrays"], 3);
    assert_eq!(doc["result"].as_array().map(Vec::len), Some(9));
    assert!(
        doc["divergence"]
            .as_str()
            .is_some_and(|d| d.contains("diverged")),
        "{doc}"
    );
}

/// A barrier after a divergent loop, laid out before the loop: the default
/// launch schedules greedily (every step checked) and the kernel ends with every
/// thread's count; the unchecked layout order (`--sched earliest`) runs the
/// barrier while lanes still loop, and its undefined outcome says that the order
/// was not checked and names the checked default; `--json` tells which ran.
#[test]
fn launches_are_checked_by_default_and_the_unchecked_order_says_so() {
    let file = kernel("barrier-after-loop.ll");
    let base = [
        "run",
        file.as_str(),
        "--grid",
        "64",
        "--threads",
        "32",
        "--group",
        "32",
        "--buffer",
        "out=i32[64]",
        "--lane-id",
        "tid",
    ];
    let checked = pllvm(&[&base[..], &["--dump", "out"]].concat());
    assert_eq!(code(&checked), 0, "{}", stderr(&checked));
    let counts: Vec<String> = (0..64).map(|t| (t % 5).to_string()).collect();
    assert!(
        stdout(&checked).contains(&format!("out: [{}]", counts.join(", "))),
        "{}",
        stdout(&checked)
    );
    let doc = json(&pllvm(&[&base[..], &["--json"]].concat()));
    assert_eq!(doc["outcome"], "returned");
    assert_eq!(doc["grid"]["scheduler"], "lowest");
    assert_eq!(doc["grid"]["checked"], true);

    let unchecked = pllvm(&[&base[..], &["--sched", "earliest"]].concat());
    assert_eq!(code(&unchecked), 1, "{}", stderr(&unchecked));
    assert!(stdout(&unchecked).contains("outcome: undefined: [W-CMD-CALL]"));
    assert!(
        stderr(&unchecked).contains("note: --sched earliest checks no greedy constraint")
            && stderr(&unchecked).contains("--sched lowest"),
        "{}",
        stderr(&unchecked)
    );
    let doc = json(&pllvm(
        &[&base[..], &["--sched", "earliest", "--json"]].concat(),
    ));
    assert_eq!(doc["grid"]["scheduler"], "earliest");
    assert_eq!(doc["grid"]["checked"], false);

    // A single run is always checked: earliest is for launches only.
    let single = pllvm(&[
        "run",
        file.as_str(),
        "--threads",
        "4",
        "--sched",
        "earliest",
    ]);
    assert_eq!(code(&single), 2, "{}", stderr(&single));
    assert!(
        stderr(&single).contains("launches (--grid) only"),
        "{}",
        stderr(&single)
    );
    // So is the REPL's.
    let repl = pllvm(&["repl", file.as_str(), "--sched", "earliest"]);
    assert_eq!(code(&repl), 2, "{}", stderr(&repl));
    assert!(
        stderr(&repl).contains("launches (--grid) only"),
        "{}",
        stderr(&repl)
    );
}
