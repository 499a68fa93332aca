//! Controlled convergence: what convergence control tokens say about which
//! dynamic instances of a convergent operation are converged (LLVM's
//! convergent operations document, "Dynamic Instances and Convergence Tokens"
//! and "Convergence Control Intrinsics"; the convergence and uniformity
//! document, "controlled convergence"), computed from a lock-step run and
//! compared with what lock step ran together (semantics/RULES.md, "Readings":
//! convergence control tokens).
//!
//! # The document's rules as computed here
//! A lane's token value stands for the dynamic instance of the intrinsic that
//! produced it; converged instances get one *class* ([`TokenClass`]):
//! - `entry` and `anchor`: the lanes that execute the call in one lock-step
//!   step are converged, and no others. For `entry` the document leaves the
//!   set to the environment (a work-group of an OpenCL launch); a run enters its
//!   function once with all lanes, so the step's lanes are that set. For
//!   `anchor` it is implementation-defined; pllvm reads it as the document's
//!   note expects ("threads ... that happen to be active at the same time"):
//!   the lanes executing it together.
//! - `loop` (a heart): two lanes execute converged instances iff their token
//!   operands are of one class and both execute the call for the n-th time with
//!   that token value (the document's rule, with n counted per lane).
//! - Any other *controlled* convergent operation `U` (a call with a
//!   `"convergencectrl"` bundle): two lanes execute converged instances iff
//!   their token values are of one class. The static rules (the verifier,
//!   `semantics::verify`) keep a lane from executing `U` twice with one token
//!   value, so a class is a set of lanes.
//!
//! A lane's token value at `U` is the class of its latest instance of the
//! defining call: the definition dominates `U`, and within a block the calls
//! run in order.
//!
//! # Against lock step
//! A step executes `U` for the lanes in its control mask (Def. 6; as
//! [`crate::convergence`], the lanes of a block's instance). The tokens hold in
//! the run iff every class of `U` is executed in one step, and every step's lanes
//! are one class: [`Violation::Split`] names a class that lock step ran in
//! several steps, [`Violation::Merged`] a step that ran lanes of several classes
//! together (for a `loop` intrinsic, lanes in different iterations).

use crate::convergence::Threads;
pub use crate::token_classes::TokenClass;
use crate::token_classes::{Classes, LaneTokens, control_of, token_of};
use pllvm_semantics::ir::{Block, Body, Inst, InstKind, Module};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The dynamic instances of one controlled operation, by class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRelation {
    /// The operation.
    pub inst: Inst,
    /// Its block.
    pub block: Block,
    /// How the report and the corpus name it: its result (`%r`), or
    /// `@callee in BLOCK` for a call without one.
    pub name: String,
    /// Per class of converged instances, in the order of their first step,
    /// its instances: (lane, lock-step step (trace row) that executed it).
    pub classes: Vec<Vec<(usize, usize)>>,
    /// Per step that executed the operation, the lanes it ran.
    pub steps: BTreeMap<usize, Vec<usize>>,
}

/// Where lock step and the tokens disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// Lanes the tokens converge were run in different steps.
    Split {
        /// The operation's name.
        op: String,
        /// The lanes of the class.
        lanes: Vec<usize>,
        /// The steps (trace rows) that ran them.
        steps: Vec<usize>,
    },
    /// One step ran lanes the tokens do not converge.
    Merged {
        /// The operation's name.
        op: String,
        /// The step (trace row).
        step: usize,
        /// The lanes of each class it ran.
        classes: Vec<Vec<usize>>,
    },
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Split { op, lanes, steps } => write!(
                f,
                "{op}: lanes {} hold converged tokens but lock step ran them in steps {} (controlled convergence: a token's converged instances execute together)",
                lanes_text(lanes),
                steps
                    .iter()
                    .map(|s| (s + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Violation::Merged { op, step, classes } => write!(
                f,
                "{op}: step {} ran together lanes whose tokens are not converged: {} (controlled convergence: only a token's converged instances execute together)",
                step + 1,
                classes
                    .iter()
                    .map(|c| lanes_text(c))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// The lanes of a class's instances, in order.
pub fn lanes_of(instances: &[(usize, usize)]) -> Vec<usize> {
    let mut lanes: Vec<usize> = instances.iter().map(|&(lane, _)| lane).collect();
    lanes.sort_unstable();
    lanes
}

/// `{0, 1}`.
pub fn lanes_text(lanes: &[usize]) -> String {
    let items: Vec<String> = lanes.iter().map(usize::to_string).collect();
    format!("{{{}}}", items.join(", "))
}

/// The controlled maximal converged-with relation of every controlled
/// operation of `body` in the run `threads`, in layout order.
pub fn controlled_relation(module: &Module, body: &Body, threads: &Threads) -> Vec<OpRelation> {
    let mut classes = Classes::default();
    // Per operation and class: lanes and steps.
    type Key = (Inst, TokenClass);
    let mut seen: BTreeMap<Key, Vec<(usize, usize)>> = BTreeMap::new();
    let mut per_step: BTreeMap<(Inst, usize), Vec<usize>> = BTreeMap::new();
    let mut first_step: HashMap<Key, usize> = HashMap::new();
    for lane in 0..threads.width() {
        let mut tokens = LaneTokens::default();
        for (&block, &step) in threads.blocks[lane].iter().zip(&threads.steps[lane]) {
            let Some(data) = body.blocks.get(block) else {
                continue;
            };
            for &inst in &data.body {
                let call = (control_of(module, body, inst), token_of(body, inst));
                let Some(class) = tokens.execute(&mut classes, inst, call, step) else {
                    continue;
                };
                seen.entry((inst, class)).or_default().push((lane, step));
                first_step
                    .entry((inst, class))
                    .and_modify(|s| *s = (*s).min(step))
                    .or_insert(step);
                per_step.entry((inst, step)).or_default().push(lane);
            }
        }
    }
    let mut ops = Vec::new();
    for &block in &body.layout {
        for &inst in &body.blocks[block].body {
            let mut classes: Vec<(usize, Vec<(usize, usize)>)> = seen
                .range((inst, TokenClass(0))..=(inst, TokenClass(usize::MAX)))
                .map(|(key, instances)| (first_step[key], instances.clone()))
                .collect();
            if classes.is_empty() && token_of(body, inst).is_none() {
                continue;
            }
            classes.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let steps: BTreeMap<usize, Vec<usize>> = per_step
                .range((inst, 0)..=(inst, usize::MAX))
                .map(|(&(_, s), lanes)| (s, lanes.clone()))
                .collect();
            ops.push(OpRelation {
                inst,
                block,
                name: op_name(module, body, block, inst),
                classes: classes.into_iter().map(|(_, c)| c).collect(),
                steps,
            });
        }
    }
    ops
}

/// `%r`, or `@callee in BLOCK` for a call without a result.
fn op_name(module: &Module, body: &Body, block: Block, inst: Inst) -> String {
    let data = &body.insts[inst];
    if let Some(name) = data.result.and_then(|v| body.values[v].name.clone()) {
        return format!("%{name}");
    }
    let callee = match &data.kind {
        InstKind::Call { callee, .. } => module
            .functions
            .get(*callee)
            .map_or("?", |f| f.name.as_str()),
        _ => "?",
    };
    format!("@{callee} in {}", body.blocks[block].name)
}

/// Where lock step ran the operations otherwise than their tokens say.
pub fn violations(relation: &[OpRelation]) -> Vec<Violation> {
    let mut out = Vec::new();
    for op in relation {
        let class_of: HashMap<(usize, usize), usize> = op
            .classes
            .iter()
            .enumerate()
            .flat_map(|(k, instances)| instances.iter().map(move |&i| (i, k)))
            .collect();
        for instances in &op.classes {
            let steps: BTreeSet<usize> = instances.iter().map(|&(_, s)| s).collect();
            if steps.len() > 1 {
                out.push(Violation::Split {
                    op: op.name.clone(),
                    lanes: lanes_of(instances),
                    steps: steps.into_iter().collect(),
                });
            }
        }
        for (&step, lanes) in &op.steps {
            let mut by_class: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for &lane in lanes {
                if let Some(&k) = class_of.get(&(lane, step)) {
                    by_class.entry(k).or_default().push(lane);
                }
            }
            if by_class.len() > 1 {
                out.push(Violation::Merged {
                    op: op.name.clone(),
                    step,
                    classes: by_class.into_values().collect(),
                });
            }
        }
    }
    out
}

/// The report of `pllvm run --convergence` for the controlled operations:
/// per operation, the lanes of each class and the lanes of each step that ran
/// it, then every disagreement. Empty for a function without tokens.
pub fn report(module: &Module, body: &Body, threads: &Threads) -> String {
    let relation = controlled_relation(module, body, threads);
    if relation.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "controlled convergence (convergence control tokens): per controlled operation, the converged lanes of each class, and what lock step ran together\n",
    );
    for op in &relation {
        let classes: Vec<String> = op
            .classes
            .iter()
            .map(|c| lanes_text(&lanes_of(c)))
            .collect();
        let steps: Vec<String> = op.steps.values().map(|l| lanes_text(l)).collect();
        out.push_str(&format!(
            "  {} ({}): tokens {}; lock step {}\n",
            op.name,
            body.blocks[op.block].name,
            if classes.is_empty() {
                "not executed".to_string()
            } else {
                classes.join(" ")
            },
            if steps.is_empty() {
                "-".to_string()
            } else {
                steps.join(" ")
            }
        ));
    }
    let found = violations(&relation);
    if found.is_empty() {
        out.push_str(
            "the run keeps every token: each class ran in one step, each step one class\n",
        );
    }
    for v in found {
        out.push_str(&format!("! {v}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "declare token @llvm.experimental.convergence.anchor()\n\
        declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n\
        define i32 @f(i32 %x, i1 %c) {\n\
        A:\n  %a = call token @llvm.experimental.convergence.anchor()\n  br i1 %c, label %B, label %C\n\
        B:\n  br label %C\n\
        C:\n  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %x) [ \"convergencectrl\"(token %a) ]\n  ret i32 %r\n}\n";

    fn relation(paths: &[(Vec<&str>, Vec<usize>)]) -> Vec<OpRelation> {
        let (module, _) = pllvm_semantics::text::parse_module(SRC).expect("parses");
        let func = module.first_definition().expect("a definition");
        let body = module.functions[func].body.as_ref().expect("a body");
        let block = |name: &str| {
            body.layout
                .iter()
                .copied()
                .find(|&b| body.blocks[b].name == name)
                .expect("a block")
        };
        let threads = Threads {
            blocks: paths
                .iter()
                .map(|(p, _)| p.iter().map(|n| block(n)).collect())
                .collect(),
            steps: paths.iter().map(|(_, s)| s.clone()).collect(),
        };
        controlled_relation(&module, body, &threads)
    }

    /// Two lanes converged at the anchor: C run for them in two steps is a
    /// split; in one step the tokens hold.
    #[test]
    fn a_class_run_in_two_steps_is_split() {
        let split = relation(&[
            (vec!["A", "C"], vec![0, 2]),
            (vec!["A", "B", "C"], vec![0, 1, 3]),
        ]);
        assert_eq!(split.len(), 1);
        assert_eq!(split[0].name, "%r");
        assert_eq!(
            violations(&split),
            vec![Violation::Split {
                op: "%r".into(),
                lanes: vec![0, 1],
                steps: vec![2, 3]
            }]
        );
        let kept = relation(&[
            (vec!["A", "C"], vec![0, 2]),
            (vec!["A", "B", "C"], vec![0, 1, 2]),
        ]);
        assert_eq!(violations(&kept), Vec::new());
    }

    /// Lanes that ran the anchor in different steps hold tokens of two classes:
    /// C run for both in one step is merged.
    #[test]
    fn classes_run_in_one_step_are_merged() {
        let merged = relation(&[(vec!["A", "C"], vec![0, 2]), (vec!["A", "C"], vec![1, 2])]);
        assert_eq!(
            violations(&merged),
            vec![Violation::Merged {
                op: "%r".into(),
                step: 2,
                classes: vec![vec![0], vec![1]]
            }]
        );
    }

    /// The document's loop with a divergent break, where the break's block C
    /// uses the heart's token and a loop value (%s = %i + 7): under `lowest`
    /// all four lanes run C in one step, each with a token of its own heart
    /// instance. Grouped by token class (the machine's observer), no lane of
    /// %s has another to disagree with; every executing lane compared, they do.
    #[test]
    fn grouping_by_token_class_keeps_a_heart_tied_value_uniform() {
        let src = "declare token @llvm.experimental.convergence.entry()\n\
            declare token @llvm.experimental.convergence.loop()\n\
            declare i32 @llvm.amdgcn.workitem.id.x()\n\
            declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n\
            define i32 @f() convergent {\n\
            entry:\n  %e = call token @llvm.experimental.convergence.entry()\n  %t = call i32 @llvm.amdgcn.workitem.id.x()\n  br label %for\n\
            for:\n  %i = phi i32 [ 0, %entry ], [ %i1, %D ]\n  %h = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]\n  %more = icmp slt i32 %i, 8\n  br i1 %more, label %B, label %E\n\
            B:\n  %brk = icmp eq i32 %i, %t\n  br i1 %brk, label %C, label %D\n\
            C:\n  %s = add i32 %i, 7\n  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %s) [ \"convergencectrl\"(token %h) ]\n  br label %E\n\
            D:\n  %i1 = add i32 %i, 1\n  br label %for\n\
            E:\n  %v = phi i32 [ -1, %for ], [ %r, %C ]\n  ret i32 %v\n}\n";
        let (module, _) = pllvm_semantics::text::parse_module(src).expect("parses");
        let observed = |grouped: bool| {
            let config = crate::RunConfig {
                threads: 4,
                observe: true,
                ..crate::RunConfig::default()
            };
            let mut m = crate::Machine::new(&module, &config).expect("a machine");
            if !grouped {
                m.divergence.tokens = None;
            }
            let outcome = m.run_to_end().expect("runs");
            assert_eq!(outcome, crate::Outcome::Returned);
            let body = m.program.body;
            let s = body
                .layout
                .iter()
                .flat_map(|&b| body.blocks[b].body.iter().copied())
                .find(|&i| {
                    body.insts[i]
                        .result
                        .is_some_and(|v| body.value_name(v) == Some("s"))
                })
                .expect("%s");
            m.divergence.insts[s]
        };
        let grouped = observed(true);
        let plain = observed(false);
        assert_eq!((grouped.instances, grouped.diverged), (1, false));
        assert_eq!((plain.instances, plain.diverged), (1, true));
    }
}
