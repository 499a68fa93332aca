//! Launches schedule greedily by default (thesis Ch. 5): a kernel whose barriers
//! every thread of its work-group reaches never ends in a barrier violation,
//! whatever the order its blocks are laid out in. The kernels are generated:
//! stages of a loop whose trip count depends on the thread id, each followed by
//! a barrier, with every block but the entry laid out in a shuffled order (the
//! unchecked layout order, `--sched earliest`, runs a barrier block that comes
//! first in the file while lanes still loop).

use pllvm_interp::buffers::{Element, dump_values};
use pllvm_interp::config::ElemType;
use pllvm_interp::launch::{Grid, launch};
use pllvm_interp::sched::{EARLIEST, Random};
use pllvm_interp::{Outcome, RunConfig};
use pllvm_semantics::text::parse_module;
use proptest::prelude::*;

/// One stage: thread t loops `(t * mul + add) mod modulus` times, summing the
/// loop counter, then waits at a barrier.
#[derive(Clone, Debug)]
struct Stage {
    mul: u32,
    add: u32,
    modulus: u32,
}

impl Stage {
    fn trips(&self, t: u32) -> u32 {
        (t.wrapping_mul(self.mul).wrapping_add(self.add)) % self.modulus
    }
}

/// The kernel of `stages`, its blocks after the entry shuffled by `layout`;
/// thread t stores the sum over the stages of 0 + 1 + … + (trips − 1).
fn kernel(stages: &[Stage], layout: u64) -> String {
    let mut entry = String::from("entry:\n");
    let mut blocks: Vec<String> = Vec::new();
    for (k, s) in stages.iter().enumerate() {
        entry += &format!(
            "  %t{k} = mul i32 %tid, {}\n  %u{k} = add i32 %t{k}, {}\n  %n{k} = urem i32 %u{k}, {}\n",
            s.mul, s.add, s.modulus
        );
        let (pre, acc) = if k == 0 {
            ("entry".to_string(), "0".to_string())
        } else {
            (format!("bar{}", k - 1), format!("%s{}", k - 1))
        };
        blocks.push(format!(
            "head{k}:\n  %i{k} = phi i32 [ 0, %{pre} ], [ %i{k}n, %body{k} ]\n  \
             %s{k} = phi i32 [ {acc}, %{pre} ], [ %s{k}n, %body{k} ]\n  \
             %c{k} = icmp ult i32 %i{k}, %n{k}\n  br i1 %c{k}, label %body{k}, label %bar{k}\n"
        ));
        blocks.push(format!(
            "body{k}:\n  %i{k}n = add i32 %i{k}, 1\n  %s{k}n = add i32 %s{k}, %i{k}\n  br label %head{k}\n"
        ));
        let next = if k + 1 == stages.len() {
            "done".to_string()
        } else {
            format!("head{}", k + 1)
        };
        blocks.push(format!(
            "bar{k}:\n  call void @llvm.nvvm.barrier0()\n  br label %{next}\n"
        ));
    }
    entry += "  br label %head0\n";
    let last = stages.len() - 1;
    blocks.push(format!(
        "done:\n  %slot = getelementptr inbounds i32, ptr %out, i32 %tid\n  \
         store i32 %s{last}, ptr %slot, align 4\n  ret void\n"
    ));
    // A seeded shuffle of the blocks after the entry (Fisher-Yates).
    let mut rng = Random::new(layout);
    for i in (1..blocks.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        blocks.swap(i, j);
    }
    format!(
        "define void @stages(ptr %out, i32 %tid) {{\n{entry}\n{}}}\n",
        blocks.join("\n")
    )
}

/// What thread t stores.
fn expected(stages: &[Stage], t: u32) -> i64 {
    stages
        .iter()
        .map(|s| {
            let n = i64::from(s.trips(t));
            n * (n - 1) / 2
        })
        .sum()
}

/// Launches the kernel on `arrays` thread arrays of `width` lanes, work-groups
/// of `per_group` arrays (the last one may have fewer), with `scheduler`
/// (`None`: the default): every array's outcome, and what each thread stored.
fn launch_stages(
    stages: &[Stage],
    layout: u64,
    (width, per_group): (usize, usize),
    arrays: usize,
    scheduler: Option<&str>,
) -> (Vec<Outcome>, Vec<Element>) {
    let text = kernel(stages, layout);
    let (module, _) = parse_module(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let threads = width * arrays;
    let mut config = RunConfig {
        max_steps: 100_000,
        ..RunConfig::default()
    };
    config
        .add_buffer(&format!("out=i32[{threads}]"))
        .expect("the buffer spec is well formed");
    let grid = Grid {
        threads: threads as u64,
        width,
        group: Some((width * per_group) as u64),
        dims: None,
        jobs: 1,
        lane_id: Some("tid".into()),
        scheduler: scheduler.map(str::to_string),
        divergence: false,
        time_limit: None,
    };
    let launched = launch(&module, &config, &grid).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let out = launched.initial.buffers["out"];
    let values = dump_values(&launched.memory, out, ElemType::Int(32), threads as u64)
        .expect("the buffer is readable");
    (
        launched.arrays.iter().map(|a| a.outcome.clone()).collect(),
        values,
    )
}

fn stage() -> impl Strategy<Value = Stage> {
    (1u32..7, 0u32..5, 1u32..6).prop_map(|(mul, add, modulus)| Stage { mul, add, modulus })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The default launch ends every such kernel, in every layout, with the
    /// values a thread computes alone: with work-groups of one thread array
    /// (Def. 18 within the array) and of several (the arrays of a group meet
    /// at every barrier, docs/launch.md "Work-groups of several warps").
    #[test]
    fn the_default_launch_never_breaks_a_barrier_every_lane_reaches(
        stages in prop::collection::vec(stage(), 1..=3),
        layout in any::<u64>(),
        width in prop::sample::select(vec![2usize, 4, 8]),
        per_group in 1usize..=3,
        arrays in 1usize..=4,
    ) {
        let (outcomes, values) =
            launch_stages(&stages, layout, (width, per_group), arrays, None);
        for (a, o) in outcomes.iter().enumerate() {
            prop_assert_eq!(o, &Outcome::Returned, "array {}\n{}", a, kernel(&stages, layout));
        }
        for (t, v) in values.iter().enumerate() {
            prop_assert_eq!(v, &Element::Int(i128::from(expected(&stages, t as u32))));
        }
    }
}

/// The property above is not vacuous: the unchecked layout order breaks the
/// barrier of some of the same kernels.
#[test]
fn the_unchecked_order_breaks_barriers_in_some_layouts() {
    let stages = [Stage {
        mul: 1,
        add: 0,
        modulus: 4,
    }];
    let broken = (0..32u64)
        .filter(|&layout| {
            let (outcomes, _) = launch_stages(&stages, layout, (4, 1), 1, Some(EARLIEST));
            outcomes.iter().any(|o| matches!(o, Outcome::Undefined(_)))
        })
        .count();
    assert!(broken > 0, "earliest broke no barrier in 32 layouts");
}
