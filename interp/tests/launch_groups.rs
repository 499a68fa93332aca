//! Work-groups of several thread arrays (docs/launch.md, "Address spaces" and
//! "Work-groups of several warps"): local memory (`addrspace(3)`) is one object
//! per work-group, shared by the group's arrays and fresh in every group; the
//! arrays of a group meet at every barrier; two arrays of a group touching one
//! byte between the same barriers, one writing, is a race naming both sites.

use pllvm_interp::buffers::{Element, dump_values};
use pllvm_interp::config::ElemType;
use pllvm_interp::launch::{Grid, Launch, launch};
use pllvm_interp::{Outcome, RunConfig};
use pllvm_semantics::ir::Module;
use pllvm_semantics::text::parse_module;

/// Thread `tid` (its id in the group from `tid.x`, its global id from
/// `--lane-id gid`) writes the local cell when it is thread 0 or 4 of its
/// group, with `between` (a barrier, or nothing) between the two writes; after
/// a barrier every thread copies the cell to `out[gid]`.
fn two_writers(between: &str) -> String {
    format!(
        "@cell = internal addrspace(3) global i32 undef, align 4

define void @two(ptr %out, i32 %gid) {{
entry:
  %l = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %is0 = icmp eq i32 %l, 0
  br i1 %is0, label %w0, label %mid
w0:
  store i32 1, ptr addrspace(3) @cell, align 4
  br label %mid
mid:
  {between}
  %is4 = icmp eq i32 %l, 4
  br i1 %is4, label %w4, label %bar
w4:
  store i32 2, ptr addrspace(3) @cell, align 4
  br label %bar
bar:
  call void @llvm.nvvm.barrier0()
  %v = load i32, ptr addrspace(3) @cell, align 4
  %slot = getelementptr inbounds i32, ptr %out, i32 %gid
  store i32 %v, ptr %slot, align 4
  ret void
}}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
"
    )
}

/// Launches `text` on `threads` threads in arrays of `width` lanes and groups
/// of `group`, the global id in `%gid`, with buffer `out` of `threads` i32.
fn run(text: &str, threads: usize, width: usize, group: u64, more: &[&str]) -> (Module, Launch) {
    let (module, _) = parse_module(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut config = RunConfig::default();
    config
        .add_buffer(&format!("out=i32[{threads}]"))
        .expect("the buffer spec is well formed");
    for spec in more {
        config
            .add_buffer(spec)
            .expect("the buffer spec is well formed");
    }
    let grid = Grid {
        threads: threads as u64,
        width,
        group: Some(group),
        dims: None,
        jobs: 2,
        lane_id: Some("gid".into()),
        scheduler: None,
        divergence: false,
        time_limit: None,
    };
    let launched = launch(&module, &config, &grid).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    (module, launched)
}

/// The `out` buffer after the launch.
fn out(launched: &Launch, threads: usize) -> Vec<Element> {
    let out = launched.initial.buffers["out"];
    dump_values(&launched.memory, out, ElemType::Int(32), threads as u64)
        .expect("the buffer is readable")
}

/// Threads 0 and 4 of a group of 8 are lane 0 of arrays 0 and 1 (W = 4): their
/// writes of the local cell with no barrier between race, in each of the two
/// groups, and the race names both stores.
#[test]
fn launch_two_arrays_writing_one_local_byte_race() {
    let (module, launched) = run(&two_writers(""), 16, 4, 8, &[]);
    assert!(launched.by_groups);
    assert!(
        launched
            .arrays
            .iter()
            .all(|a| a.outcome == Outcome::Returned)
    );
    // 4 bytes in each of 2 groups; no race between the groups.
    assert_eq!(launched.group_race_count, 8);
    assert_eq!(launched.race_count, 0, "{:?}", launched.races);
    assert_eq!(launched.group_races.len(), 2, "{:?}", launched.group_races);
    let body = module.functions[launched.func].body.as_ref().unwrap();
    for (g, race) in launched.group_races.iter().enumerate() {
        assert_eq!(race.group, g as u64);
        assert_eq!(
            (race.object.as_str(), race.offset, race.len),
            ("@cell", 0, 4)
        );
        assert_eq!((race.first.array, race.first.lane), (2 * g, 0));
        assert_eq!((race.then.array, race.then.lane), (2 * g + 1, 0));
        assert!(race.first.write && race.then.write);
        assert_eq!(body.blocks[race.first.block].name, "w0");
        assert_eq!(body.blocks[race.then.block].name, "w4");
        let text = race.render(body);
        assert!(
            text.contains("write by thread array") && text.contains("in %w4"),
            "{text}"
        );
    }
}

/// The same kernel with a barrier between the two writes: no race, and every
/// thread reads the later write.
#[test]
fn launch_a_barrier_between_the_writes_orders_them() {
    let (_, launched) = run(
        &two_writers("call void @llvm.nvvm.barrier0()"),
        16,
        4,
        8,
        &[],
    );
    assert!(
        launched
            .arrays
            .iter()
            .all(|a| a.outcome == Outcome::Returned)
    );
    assert_eq!(launched.group_race_count, 0, "{:?}", launched.group_races);
    assert_eq!(launched.race_count, 0);
    assert_eq!(out(&launched, 16), vec![Element::Int(2); 16]);
}

/// A write and another array's read of one local byte between the same
/// barriers race too (thread 4 reads what thread 0 writes).
#[test]
fn launch_a_write_and_a_read_of_another_array_race() {
    let text = "@cell = internal addrspace(3) global i32 undef, align 4

define void @wr(ptr %out, i32 %gid) {
entry:
  %l = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %is0 = icmp eq i32 %l, 0
  br i1 %is0, label %w0, label %mid
w0:
  store i32 7, ptr addrspace(3) @cell, align 4
  br label %mid
mid:
  %is4 = icmp eq i32 %l, 4
  br i1 %is4, label %r4, label %end
r4:
  %v = load i32, ptr addrspace(3) @cell, align 4
  %slot = getelementptr inbounds i32, ptr %out, i32 %gid
  store i32 %v, ptr %slot, align 4
  br label %end
end:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
";
    let (_, launched) = run(text, 8, 4, 8, &[]);
    assert_eq!(launched.group_race_count, 4, "{:?}", launched.group_races);
    let race = &launched.group_races[0];
    assert!(race.first.write && !race.then.write, "{race:?}");
    assert_eq!((race.first.array, race.then.array), (0, 1));
}

/// Each thread writes its global id into the local array at its local id;
/// after a barrier it reads the slot mirrored in its group, which another
/// thread array wrote: local memory is shared by the arrays of a group and
/// fresh in each group, so 4 groups of 8 threads (W = 2, four arrays a group)
/// reverse their ids group by group, with no race between groups (they all
/// write the same local bytes) nor within one. `scratch` is a global in
/// addrspace(3), or a `ptr addrspace(3)` parameter sized by a buffer.
#[test]
fn launch_local_memory_is_shared_within_a_group_and_fresh_in_each() {
    let kernel = |decl: &str, param: &str, base: &str| {
        format!(
            "{decl}
define void @mirror(ptr %out, i32 %gid{param}) {{
entry:
  %l = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mine = getelementptr inbounds i32, ptr addrspace(3) {base}, i32 %l
  store i32 %gid, ptr addrspace(3) %mine, align 4
  call void @llvm.nvvm.barrier0()
  %last = sub i32 %n, 1
  %m = sub i32 %last, %l
  %theirs = getelementptr inbounds i32, ptr addrspace(3) {base}, i32 %m
  %v = load i32, ptr addrspace(3) %theirs, align 4
  %slot = getelementptr inbounds i32, ptr %out, i32 %gid
  store i32 %v, ptr %slot, align 4
  ret void
}}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()
"
        )
    };
    let expect: Vec<Element> = (0..32)
        .map(|t: i128| Element::Int(t / 8 * 8 + 7 - t % 8))
        .collect();
    let global = kernel(
        "@scratch = internal addrspace(3) global [8 x i32] undef, align 4\n",
        "",
        "@scratch",
    );
    let (_, launched) = run(&global, 32, 2, 8, &[]);
    let param = kernel("", ", ptr addrspace(3) %lds", "%lds");
    let (_, by_param) = run(&param, 32, 2, 8, &["lds=i32[8]"]);
    for launched in [launched, by_param] {
        assert!(
            launched
                .arrays
                .iter()
                .all(|a| a.outcome == Outcome::Returned)
        );
        assert_eq!(launched.race_count, 0, "{:?}", launched.races);
        assert_eq!(launched.group_race_count, 0, "{:?}", launched.group_races);
        assert_eq!(out(&launched, 32), expect);
    }
}

/// Local memory is one object per work-group also when each group is one
/// thread array: the groups all write the same local bytes, which is no race.
#[test]
fn launch_groups_of_one_array_have_local_memory_of_their_own() {
    let text = two_writers("call void @llvm.nvvm.barrier0()");
    let (_, launched) = run(&text, 16, 8, 8, &[]);
    assert!(!launched.by_groups);
    assert_eq!(launched.race_count, 0, "{:?}", launched.races);
    assert_eq!(out(&launched, 16), vec![Element::Int(2); 16]);
}

/// An array that returns while another of its group waits at a barrier is
/// barrier divergence across thread arrays: undefined behaviour of the
/// barrier, in the waiting array.
#[test]
fn launch_an_array_that_skips_the_barrier_is_barrier_divergence() {
    let text = "define void @skip(ptr %out, i32 %gid) {
entry:
  %l = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %early = icmp uge i32 %l, 4
  br i1 %early, label %end, label %wait
wait:
  %x = add i32 %l, 1
  call void @llvm.nvvm.barrier0()
  br label %end
end:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
";
    let (module, launched) = run(text, 8, 4, 8, &[]);
    assert_eq!(launched.arrays[1].outcome, Outcome::Returned);
    let Outcome::Undefined(ub) = &launched.arrays[0].outcome else {
        panic!("{:?}", launched.arrays[0].outcome);
    };
    assert!(
        ub.message
            .contains("barrier divergence across thread arrays")
            && ub.message.contains("thread array 1"),
        "{}",
        ub.message
    );
    // The block is the given module's (the barrier's block, cut for the run).
    let body = module.functions[launched.func].body.as_ref().unwrap();
    assert_eq!(body.blocks[ub.block].name, "wait");
}
