//! The stepper behind the REPL (`pllvm_interp::stepper`): forward block by block,
//! back exactly, a bounded window of snapshots, and stops when the watch says so.

use pllvm_interp::RunConfig;
use pllvm_interp::greedy::GreedyFacts;
use pllvm_interp::machine::{Machine, Outcome};
use pllvm_interp::sched::{Lowest, Scheduler};
use pllvm_interp::stepper::{BACK_DEPTH, Back, Drive, StepPolicy, Stepper, Watch};
use pllvm_semantics::ir::{Block, Module};
use pllvm_semantics::rules::{Program, State};

/// A counting loop: `%n` iterations, then every lane returns `%n`.
const LOOP: &str = "define i32 @f(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %loop, label %exit
exit:
  ret i32 %j
}
";

/// The lowest legal block (§2.5).
#[derive(Clone, Debug)]
struct Low;

impl StepPolicy for Low {
    fn pick(
        &mut self,
        program: &Program<'_>,
        facts: &GreedyFacts,
        state: &State,
        legal: &[Block],
    ) -> Result<Block, String> {
        Lowest
            .pick(program, facts, state, legal)
            .ok_or_else(|| "no block is legal next".to_string())
    }
}

/// Stops after `budget` interrupt checks, or before a block named `before`.
struct Stops {
    budget: Option<u64>,
    before: Option<&'static str>,
}

impl Watch for Stops {
    fn interrupted(&mut self) -> bool {
        match &mut self.budget {
            Some(0) => true,
            Some(n) => {
                *n -= 1;
                false
            }
            None => false,
        }
    }
    fn stop_before(&mut self, program: &Program<'_>, block: Block) -> Option<String> {
        (Some(program.block_name(block)) == self.before).then(|| "break".to_string())
    }
    fn stop_after(&mut self, _: &Machine<'_>) -> Option<String> {
        None
    }
}

fn never() -> Stops {
    Stops {
        budget: None,
        before: None,
    }
}

fn setup(n: u32) -> (Module, RunConfig, GreedyFacts) {
    let (module, _) = pllvm_semantics::text::parse_module(LOOP).expect("parses");
    let mut config = RunConfig {
        threads: 2,
        ..RunConfig::default()
    };
    config.add_arg(&format!("n={n}")).expect("argument");
    let facts = {
        let m = Machine::new(&module, &config).expect("machine");
        GreedyFacts::compute(&m.program).with_interp(config.interp)
    };
    (module, config, facts)
}

/// `back` keeps the last `BACK_DEPTH` steps and no more: after 1,500 steps it
/// undoes 1,000, reports the 5 it cannot, and lands on the very state of a run of
/// 500 steps; stepping forward again repeats the same run to its end.
#[test]
fn back_window_is_bounded_and_exact() {
    let (module, config, facts) = setup(2000);
    let mut long = Stepper::new(&module, &config, Low).expect("stepper");
    let r = long
        .advance(
            &module,
            &config,
            &facts,
            Drive::Policy(Some(1500)),
            &mut never(),
        )
        .expect("advances");
    assert_eq!((r.start, long.steps, long.ended.clone()), (0, 1500, None));
    assert_eq!(long.snapshots(), BACK_DEPTH);
    let back = long.back(BACK_DEPTH as u64 + 5);
    assert_eq!(
        back,
        Back {
            undone: BACK_DEPTH as u64,
            left: 5
        }
    );
    let mut short = Stepper::new(&module, &config, Low).expect("stepper");
    short
        .advance(
            &module,
            &config,
            &facts,
            Drive::Policy(Some(500)),
            &mut never(),
        )
        .expect("advances");
    assert_eq!(long.steps, 500);
    assert_eq!(long.state, short.state);
    assert_eq!(long.divergence, short.divergence);
    assert_eq!(long.trace, short.trace);
    assert_eq!(long.back(1).undone, 0, "no snapshot older than the window");
    for s in [&mut long, &mut short] {
        s.advance(&module, &config, &facts, Drive::Policy(None), &mut never())
            .expect("advances");
        assert_eq!(s.ended, Some(Outcome::Returned));
        let m = s.machine(&module, &config).expect("machine");
        assert_eq!(m.result_text(), "[2000, 2000]");
    }
    assert_eq!(long.state, short.state);
}

/// The watch stops a run: the interrupt flag before the next block, a block
/// breakpoint before scheduling it (never the first block of the command).
#[test]
fn watch_stops_and_block_breaks_leave_the_block_unscheduled() {
    let (module, config, facts) = setup(10);
    let mut s = Stepper::new(&module, &config, Low).expect("stepper");
    let mut interrupt = Stops {
        budget: Some(3),
        before: None,
    };
    let r = s
        .advance(
            &module,
            &config,
            &facts,
            Drive::Policy(None),
            &mut interrupt,
        )
        .expect("advances");
    assert_eq!(r.stop.as_deref(), Some("interrupted at step 3"));
    assert_eq!(s.steps, 3);
    let mut at_exit = Stops {
        budget: None,
        before: Some("exit"),
    };
    let r = s
        .advance(&module, &config, &facts, Drive::Policy(None), &mut at_exit)
        .expect("advances");
    assert_eq!(r.stop.as_deref(), Some("break"));
    assert_eq!(s.steps, 11, "entry and ten loop iterations, not exit");
    assert_eq!(s.ended, None);
    let r = s
        .advance(&module, &config, &facts, Drive::Policy(None), &mut at_exit)
        .expect("the first block of a command is scheduled even at a breakpoint");
    assert_eq!(
        (r.stop, s.steps, s.ended),
        (None, 12, Some(Outcome::Returned))
    );
}
