//! Dynamic convergence as LLVM's "Convergence and Uniformity" defines it, computed
//! from a lock-step run, and compared with what lock-step execution put together.
//!
//! # The document's terms as computed here
//! - **Dynamic instances** ("Threads and Dynamic Instances"): each lane is a
//!   thread; its sequence of dynamic instances is the blocks it executed, in order.
//!   A lane executes a block in a step when its control mask (thesis Def. 6) is set
//!   for it: those steps form the lane's path through the CFG (an active lane moves
//!   by [PC-ACTIVE]; a passive one by ℓ_next = ⊤ to the successor scheduled next).
//!   The instructions of a block execute together, so a block stands for its static
//!   instances ([`Threads`]).
//! - **Maximal converged-with** ("Maximal Convergence"), for one cycle hierarchy:
//!   computed by the characterization of "Dependence on Cycles Headers" (cases 1-3):
//!   two dynamic instances of `X` are converged iff neither thread executed a header
//!   of a cycle containing `X` before them, or the last such header instances
//!   before them are themselves converged. That makes the relation an equivalence
//!   whose classes are keys `(X, class of the last header instance)`
//!   ([`maximal_converged_with`]). [`check_maximal_definition`] checks that the
//!   result satisfies the definition itself (every header instance before `X1` is
//!   convergence-before `X2` and back, "without assuming that `X1` is converged with
//!   `X2`") and that convergence-before is a strict partial order.
//! - **Convergence-before** ("Convergence", rules 1-3 and their transitive closure):
//!   on the classes, the edges of each thread's order; `P` is before `Q` iff `Q`'s
//!   class is reached from `P`'s by at least one edge ([`convergence_before`]).
//! - **m-converged** ("m-converged static instances"): a block whose dynamic
//!   instances are related the same way in every cycle hierarchy; here, in one
//!   execution, over the hierarchies of `pllvm_analysis::cycles::all_hierarchies`
//!   ([`behaved_m_converged`]). What `llvm` (`pllvm_analysis::llvm`) claims is read
//!   with a probe ([`llvm_m_converged`]).
//! - **Lock step**: the instances of one trace row ran together. [`compare`] puts
//!   the two side by side for every block.

use crate::trace::TraceRow;
use pllvm_analysis::cycles::{CycleInfo, all_hierarchies};
use pllvm_analysis::result::InitShapes;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{
    BinOp, Block, Body, ConstData, FuncId, InstData, InstKind, IntFlags, Module, ValueData,
    ValueDef,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// A dynamic instance ("Threads and Dynamic Instances"): the `index`-th block (from
/// 0) that thread (lane) `thread` executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DynamicInstance {
    /// The lane.
    pub thread: usize,
    /// The position in the lane's sequence.
    pub index: usize,
}

/// Each thread's sequence of dynamic instances, with the lock-step step (trace row)
/// that executed each.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Threads {
    /// Per lane, the blocks it executed, in order.
    pub blocks: Vec<Vec<Block>>,
    /// Per lane, the 0-based trace row of each of its dynamic instances.
    pub steps: Vec<Vec<usize>>,
}

impl Threads {
    /// The sequences of a lock-step run of `width` lanes: lane τ executed row r's
    /// block iff its control mask was set (Def. 6).
    pub fn from_trace(width: usize, rows: &[TraceRow]) -> Threads {
        Threads::from_steps(
            width,
            rows.iter().map(|r| (r.scheduled, r.cmask.as_slice())),
        )
    }

    /// The sequences of `width` lanes from (block, control mask) per step.
    pub fn from_steps<'a>(
        width: usize,
        steps: impl IntoIterator<Item = (Block, &'a [bool])>,
    ) -> Threads {
        let mut t = Threads {
            blocks: vec![Vec::new(); width],
            steps: vec![Vec::new(); width],
        };
        for (row, (block, mask)) in steps.into_iter().enumerate() {
            for (lane, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
                if lane < width {
                    t.blocks[lane].push(block);
                    t.steps[lane].push(row);
                }
            }
        }
        t
    }

    /// Sequences given as paths (as the document's tables list them), each dynamic
    /// instance in a step of its own (no lock step).
    pub fn from_paths(paths: Vec<Vec<Block>>) -> Threads {
        let mut next = 0;
        let steps = paths
            .iter()
            .map(|p| {
                let s: Vec<usize> = (next..next + p.len()).collect();
                next += p.len();
                s
            })
            .collect();
        Threads {
            blocks: paths,
            steps,
        }
    }

    /// The number of threads.
    pub fn width(&self) -> usize {
        self.blocks.len()
    }

    /// The block of a dynamic instance.
    pub fn block(&self, x: DynamicInstance) -> Block {
        self.blocks[x.thread][x.index]
    }

    /// The trace row that executed a dynamic instance.
    pub fn step(&self, x: DynamicInstance) -> usize {
        self.steps[x.thread][x.index]
    }

    /// Every dynamic instance, thread by thread.
    pub fn instances(&self) -> impl Iterator<Item = DynamicInstance> + '_ {
        self.blocks.iter().enumerate().flat_map(|(thread, seq)| {
            (0..seq.len()).map(move |index| DynamicInstance { thread, index })
        })
    }

    /// The dynamic instances of `block`, thread by thread.
    pub fn instances_of(&self, block: Block) -> Vec<DynamicInstance> {
        self.instances()
            .filter(|&x| self.block(x) == block)
            .collect()
    }

    /// The blocks some thread executed, ascending.
    pub fn executed_blocks(&self) -> BTreeSet<Block> {
        self.blocks.iter().flatten().copied().collect()
    }
}

/// The headers of the cycles containing `node` (the `H1 … Hk` of "Dependence on
/// Cycles Headers"; `node` itself when it is a header).
fn headers_around(cycles: &CycleInfo, node: u32) -> Vec<u32> {
    cycles
        .cycles_containing(node)
        .into_iter()
        .map(|c| cycles.cycle(c).header)
        .collect()
}

/// One class of the maximal converged-with relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvergedClass {
    /// The static instance (block).
    pub block: Block,
    /// The class of the last header instance (of a cycle containing the block)
    /// that precedes the members in their threads; `None` when there is none.
    pub last_header: Option<usize>,
    /// The members, at most one per thread, in thread order.
    pub members: Vec<DynamicInstance>,
}

/// The maximal converged-with relation of one execution for one cycle hierarchy,
/// as equivalence classes (converged-with relates different threads; each class
/// holds at most one instance per thread).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvergedWith {
    /// Per thread, per dynamic instance, its class.
    pub class: Vec<Vec<usize>>,
    /// The classes.
    pub classes: Vec<ConvergedClass>,
}

impl ConvergedWith {
    /// The class of a dynamic instance.
    pub fn class_of(&self, x: DynamicInstance) -> usize {
        self.class[x.thread][x.index]
    }

    /// Whether `a` and `b` are converged (for `a` and `b` of different threads).
    pub fn converged(&self, a: DynamicInstance, b: DynamicInstance) -> bool {
        a.thread != b.thread && self.class_of(a) == self.class_of(b)
    }

    /// The first member of each instance's class: equal representatives mean
    /// converged, so two relations agree on a block iff its instances' representatives
    /// agree.
    pub fn representative(&self, x: DynamicInstance) -> DynamicInstance {
        self.classes[self.class_of(x)]
            .members
            .first()
            .copied()
            .unwrap_or(x)
    }
}

/// **Maximal converged-with** for the hierarchy `cycles` ("Maximal Convergence",
/// computed by cases 1-3 of "Dependence on Cycles Headers"): `X1` and `X2` are
/// converged iff neither thread executed a header of a cycle containing `X` before
/// them (case 1), or the most recent such header instances before them are
/// converged (case 3: the last point of convergence with no header since; case 2
/// otherwise). Classes are interned as `(X, class of the last header instance)`.
pub fn maximal_converged_with(threads: &Threads, cycles: &CycleInfo) -> ConvergedWith {
    let mut interned: HashMap<(Block, Option<usize>), usize> = HashMap::new();
    let mut out = ConvergedWith {
        class: Vec::with_capacity(threads.width()),
        classes: Vec::new(),
    };
    let mut around: HashMap<Block, Vec<u32>> = HashMap::new();
    for (thread, seq) in threads.blocks.iter().enumerate() {
        // The last instance of each header in this thread: (index, class).
        let mut last: HashMap<u32, (usize, usize)> = HashMap::new();
        let mut classes = Vec::with_capacity(seq.len());
        for (index, &x) in seq.iter().enumerate() {
            let hs = around
                .entry(x)
                .or_insert_with(|| headers_around(cycles, x.as_u32()));
            let last_header = hs
                .iter()
                .filter_map(|h| last.get(h))
                .max_by_key(|(at, _)| *at)
                .map(|&(_, class)| class);
            let next = out.classes.len();
            let class = *interned.entry((x, last_header)).or_insert(next);
            if class == next {
                out.classes.push(ConvergedClass {
                    block: x,
                    last_header,
                    members: Vec::new(),
                });
            }
            out.classes[class]
                .members
                .push(DynamicInstance { thread, index });
            classes.push(class);
            if hs.contains(&x.as_u32()) {
                last.insert(x.as_u32(), (index, class));
            }
        }
        out.class.push(classes);
    }
    out
}

/// The **convergence order** ("Convergence", rules 1-3 and their transitive
/// closure) of an execution under a converged-with relation.
#[derive(Clone, Debug)]
pub struct ConvergenceOrder {
    /// Per class, the classes reached by at least one thread-order edge (bits);
    /// `None` beyond [`REACH_LIMIT`] classes.
    reach: Option<Vec<Vec<u64>>>,
    /// Whether the order is strict (no class is before itself).
    strict: bool,
    /// The classes in a linear extension of the order (by first step on ties).
    linear: Vec<usize>,
}

impl ConvergenceOrder {
    fn reaches(&self, from: usize, to: usize) -> Option<bool> {
        let reach = self.reach.as_ref()?;
        Some(
            reach
                .get(from)
                .and_then(|bits| bits.get(to / 64))
                .is_some_and(|w| w & (1 << (to % 64)) != 0),
        )
    }

    /// Whether `p` is convergence-before `q`; `None` when the execution has more
    /// than [`REACH_LIMIT`] classes and the order was not tabulated.
    pub fn before(
        &self,
        relation: &ConvergedWith,
        p: DynamicInstance,
        q: DynamicInstance,
    ) -> Option<bool> {
        self.reaches(relation.class_of(p), relation.class_of(q))
    }

    /// Whether convergence-before is a strict partial order, as the document
    /// requires of any converged-with relation.
    pub fn is_strict_partial_order(&self) -> bool {
        self.strict
    }

    /// The classes in a linear extension of the order (ties by the earliest trace
    /// row of a member): the columns of [`table`].
    pub fn linear_extension(&self) -> &[usize] {
        &self.linear
    }
}

/// The most classes whose convergence order is tabulated (a bit matrix, 32 MiB at
/// the limit); longer executions get only the linear extension.
pub const REACH_LIMIT: usize = 16_384;

/// **Convergence-before** of `threads` under `relation`: rule 1 (earlier in the
/// same thread), rules 2-3 (through converged instances), transitively closed. On
/// the classes it is reachability along the threads' order edges.
pub fn convergence_before(threads: &Threads, relation: &ConvergedWith) -> ConvergenceOrder {
    let n = relation.classes.len();
    let mut succs: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut strict = true;
    for classes in &relation.class {
        for w in classes.windows(2) {
            if w[0] == w[1] {
                strict = false;
            }
            succs[w[0]].insert(w[1]);
        }
    }
    let first_step = |c: usize| {
        relation.classes[c]
            .members
            .iter()
            .map(|&x| threads.step(x))
            .min()
            .unwrap_or(usize::MAX)
    };
    // Kahn's algorithm, the ready class with the earliest step first.
    let mut indegree = vec![0usize; n];
    for s in &succs {
        for &d in s {
            indegree[d] += 1;
        }
    }
    let mut ready: BTreeSet<(usize, usize)> = (0..n)
        .filter(|&c| indegree[c] == 0)
        .map(|c| (first_step(c), c))
        .collect();
    let mut linear = Vec::with_capacity(n);
    while let Some(&(s, c)) = ready.iter().next() {
        ready.remove(&(s, c));
        linear.push(c);
        for &d in &succs[c] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.insert((first_step(d), d));
            }
        }
    }
    let words = n.div_ceil(64);
    let acyclic = linear.len() == n;
    if !acyclic {
        strict = false;
        let placed: BTreeSet<usize> = linear.iter().copied().collect();
        let mut rest: Vec<usize> = (0..n).filter(|c| !placed.contains(c)).collect();
        rest.sort_by_key(|&c| (first_step(c), c));
        linear.extend(rest);
    }
    if n > REACH_LIMIT {
        return ConvergenceOrder {
            reach: None,
            strict,
            linear,
        };
    }
    let mut reach = vec![vec![0u64; words]; n];
    if acyclic {
        for &c in linear.iter().rev() {
            let mut bits = vec![0u64; words];
            for &d in &succs[c] {
                bits[d / 64] |= 1 << (d % 64);
                for (b, r) in bits.iter_mut().zip(&reach[d]) {
                    *b |= r;
                }
            }
            reach[c] = bits;
        }
    } else {
        // A cycle: not a strict order. Reachability by search, for the report.
        for (c, bits) in reach.iter_mut().enumerate() {
            let mut work: VecDeque<usize> = succs[c].iter().copied().collect();
            while let Some(d) = work.pop_front() {
                if bits[d / 64] & (1 << (d % 64)) == 0 {
                    bits[d / 64] |= 1 << (d % 64);
                    work.extend(succs[d].iter().copied());
                }
            }
        }
    }
    ConvergenceOrder {
        reach: Some(reach),
        strict,
        linear,
    }
}

/// Checks that `relation` is the maximal converged-with relation of `threads` for
/// `cycles` by the definition itself ("Maximal Convergence"): convergence-before is
/// a strict partial order, each class holds one instance per thread at most, and
/// for every two instances `X1`, `X2` of a block `X` in different threads, they are
/// related iff for every cycle containing `X` with header `H`, every instance of
/// `H` before `X1` is convergence-before `X2` and every instance of `H` before `X2`
/// is convergence-before `X1`, without assuming `X1` converged with `X2` (so the
/// path must reach `X2` through an earlier instance of `X2`'s thread).
pub fn check_maximal_definition(
    threads: &Threads,
    cycles: &CycleInfo,
    relation: &ConvergedWith,
    order: &ConvergenceOrder,
) -> Result<(), String> {
    if !order.is_strict_partial_order() {
        return Err("convergence-before is not a strict partial order".into());
    }
    if order.reach.is_none() {
        return Err(format!(
            "{} classes: more than the {REACH_LIMIT} whose order is tabulated",
            relation.classes.len()
        ));
    }
    for (k, c) in relation.classes.iter().enumerate() {
        let per_thread: BTreeSet<usize> = c.members.iter().map(|x| x.thread).collect();
        if per_thread.len() != c.members.len() {
            return Err(format!("class {k} holds two instances of one thread"));
        }
    }
    // `h` ⊑ the instance before `x` in its thread: equal, converged or before.
    let reaches_before = |h: DynamicInstance, x: DynamicInstance| -> bool {
        if x.index == 0 {
            return false;
        }
        let p = DynamicInstance {
            thread: x.thread,
            index: x.index - 1,
        };
        let (ch, cp) = (relation.class_of(h), relation.class_of(p));
        ch == cp || order.reaches(ch, cp) == Some(true)
    };
    // The last instance of header `h` strictly before `x` in its thread.
    let last_before = |h: u32, x: DynamicInstance| -> Option<DynamicInstance> {
        (0..x.index)
            .rev()
            .find(|&i| threads.blocks[x.thread][i].as_u32() == h)
            .map(|index| DynamicInstance {
                thread: x.thread,
                index,
            })
    };
    for block in threads.executed_blocks() {
        let hs = headers_around(cycles, block.as_u32());
        let xs = threads.instances_of(block);
        for (i, &x1) in xs.iter().enumerate() {
            for &x2 in &xs[i + 1..] {
                if x1.thread == x2.thread {
                    continue;
                }
                // Earlier instances of a header are before its last one in the
                // thread, so the last one decides.
                let definition = hs.iter().all(|&h| {
                    last_before(h, x1).is_none_or(|h1| reaches_before(h1, x2))
                        && last_before(h, x2).is_none_or(|h2| reaches_before(h2, x1))
                });
                if definition != relation.converged(x1, x2) {
                    return Err(format!(
                        "block {} instances (lane {}, #{}) and (lane {}, #{}): the definition says {}, the computed relation {}",
                        block.as_u32(),
                        x1.thread,
                        x1.index,
                        x2.thread,
                        x2.index,
                        if definition {
                            "converged"
                        } else {
                            "not converged"
                        },
                        if definition {
                            "does not relate them"
                        } else {
                            "relates them"
                        },
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The relation of every hierarchy in `hierarchies`.
pub fn relations(threads: &Threads, hierarchies: &[CycleInfo]) -> Vec<ConvergedWith> {
    hierarchies
        .iter()
        .map(|h| maximal_converged_with(threads, h))
        .collect()
}

/// **m-converged**, dynamically ("m-converged static instances": the maximal
/// converged-with relation of its dynamic instances is the same in every cycle
/// hierarchy): for every executed block, whether `relations` (one per hierarchy)
/// all relate its instances alike in this execution.
pub fn behaved_m_converged(
    threads: &Threads,
    relations: &[ConvergedWith],
) -> BTreeMap<Block, bool> {
    let mut out = BTreeMap::new();
    for block in threads.executed_blocks() {
        let xs = threads.instances_of(block);
        let same = relations.windows(2).all(|w| {
            xs.iter()
                .all(|&x| w[0].representative(x) == w[1].representative(x))
        });
        out.insert(block, same);
    }
    out
}

/// The blocks `llvm` (`pllvm_analysis::llvm`) reports m-converged for `cycles`,
/// read with a probe: one `add i32 0, 0` per block. By the document's uniformity
/// rules ("Uniformity", rules 2 and 3.2) its output is divergent iff its block is
/// not m-converged (its operands are constants), so the probe is uniform exactly in
/// the blocks the analysis calls m-converged. Unreachable blocks are left out.
pub fn llvm_m_converged(
    module: &Module,
    func: FuncId,
    init: &InitShapes,
    cycles: CycleInfo,
) -> Result<BTreeSet<Block>, String> {
    let mut probe = module.clone();
    let i32_ty = probe.types.int(32);
    let Some(body) = probe.functions[func].body.as_mut() else {
        return Err(format!("@{} has no body", module.functions[func].name));
    };
    let zero = body.add_const(i32_ty, ConstData::Int(0u32.into()));
    let mut probes = Vec::new();
    for b in body.layout.clone() {
        let inst = body.insts.push(InstData {
            kind: InstKind::Binary {
                op: BinOp::Add,
                flags: IntFlags::default(),
                ty: i32_ty,
                lhs: zero,
                rhs: zero,
            },
            result: None,
            total: false,
        });
        let value = body.values.push(ValueData {
            ty: i32_ty,
            name: None,
            def: ValueDef::Inst(inst),
        });
        body.insts[inst].result = Some(value);
        body.blocks[b].body.insert(0, inst);
        probes.push((b, value));
    }
    let Some(body) = probe.functions[func].body.as_ref() else {
        return Err(format!("@{} has no body", module.functions[func].name));
    };
    let cfg = Cfg::new(body);
    let r = pllvm_analysis::llvm::analyze_with(&probe, func, body, init, cycles);
    Ok(probes
        .into_iter()
        .filter(|&(b, v)| cfg.reachable(b) && r.values[v].is_uniform())
        .map(|(b, _)| b)
        .collect())
}

/// One block of [`compare`]: the document's convergence beside lock step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockComparison {
    /// The block.
    pub block: Block,
    /// Its dynamic instances.
    pub instances: usize,
    /// Whether it behaved m-converged in this execution (the same relation in
    /// every hierarchy compared).
    pub m_converged: bool,
    /// What `llvm` claims (`None`: not asked).
    pub llvm_m_converged: Option<bool>,
    /// Classes of the relation for the hierarchy compared against.
    pub converged_classes: usize,
    /// Trace rows that executed the block.
    pub lock_step_groups: usize,
    /// A pair of instances lock step ran together although they are not converged.
    pub joined_not_converged: Option<(DynamicInstance, DynamicInstance)>,
    /// A pair of converged instances lock step ran apart.
    pub converged_not_joined: Option<(DynamicInstance, DynamicInstance)>,
}

impl BlockComparison {
    /// Whether lock step put together exactly the converged instances.
    pub fn lock_step_agrees(&self) -> bool {
        self.joined_not_converged.is_none() && self.converged_not_joined.is_none()
    }
}

/// Per executed block: whether it behaved m-converged over `relations` (one per
/// hierarchy), and how lock step (the trace rows) compares with `relations[at]`.
pub fn compare(
    threads: &Threads,
    relations: &[ConvergedWith],
    at: usize,
    llvm: Option<&BTreeSet<Block>>,
) -> Vec<BlockComparison> {
    let m = behaved_m_converged(threads, relations);
    let Some(relation) = relations.get(at) else {
        return Vec::new();
    };
    threads
        .executed_blocks()
        .into_iter()
        .map(|block| {
            let xs = threads.instances_of(block);
            let classes: BTreeSet<usize> = xs.iter().map(|&x| relation.class_of(x)).collect();
            let rows: BTreeSet<usize> = xs.iter().map(|&x| threads.step(x)).collect();
            let mut joined_not_converged = None;
            let mut converged_not_joined = None;
            for (i, &a) in xs.iter().enumerate() {
                for &b in &xs[i + 1..] {
                    if a.thread == b.thread {
                        continue;
                    }
                    let joined = threads.step(a) == threads.step(b);
                    let converged = relation.converged(a, b);
                    if joined && !converged && joined_not_converged.is_none() {
                        joined_not_converged = Some((a, b));
                    }
                    if converged && !joined && converged_not_joined.is_none() {
                        converged_not_joined = Some((a, b));
                    }
                }
            }
            BlockComparison {
                block,
                instances: xs.len(),
                m_converged: m.get(&block).copied().unwrap_or(true),
                llvm_m_converged: llvm.map(|s| s.contains(&block)),
                converged_classes: classes.len(),
                lock_step_groups: rows.len(),
                joined_not_converged,
                converged_not_joined,
            }
        })
        .collect()
}

/// The header names of a hierarchy, sorted: how corpus files and reports name it.
pub fn header_names(body: &Body, cycles: &CycleInfo) -> Vec<String> {
    let mut names: Vec<String> = cycles
        .ids()
        .map(|c| {
            body.blocks[Block::from_u32(cycles.cycle(c).header)]
                .name
                .clone()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every hierarchy a DFS can produce for `body` (the documented DFS's first; at
/// most `limit` successor orders are tried, see `all_hierarchies`).
pub fn hierarchies(body: &Body, limit: usize) -> Vec<CycleInfo> {
    let cfg = Cfg::new(body);
    all_hierarchies(cfg.graph(), cfg.entry().as_u32(), limit).0
}

/// The execution as the document's thread tables show it: one row per thread, one
/// column per class of converged dynamic instances, columns in a linear extension
/// of convergence-before ("Dynamic instances listed in the same column are
/// converged").
pub fn table(
    body: &Body,
    threads: &Threads,
    relation: &ConvergedWith,
    order: &ConvergenceOrder,
) -> String {
    let columns: Vec<usize> = order.linear_extension().to_vec();
    let at: HashMap<usize, usize> = columns.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    grid(body, threads, columns.len(), |x| {
        at.get(&relation.class_of(x)).copied()
    })
}

/// What lock step put together, in the layout of [`table`]: one column per trace
/// row, holding the lanes whose control mask was set.
pub fn lock_step_table(body: &Body, threads: &Threads) -> String {
    let rows = threads.steps.iter().flatten().max().map_or(0, |m| m + 1);
    grid(body, threads, rows, |x| Some(threads.step(x)))
}

/// A thread table with `columns` columns, instance `x` in column `column(x)`.
fn grid(
    body: &Body,
    threads: &Threads,
    columns: usize,
    column: impl Fn(DynamicInstance) -> Option<usize>,
) -> String {
    let name = |b: Block| body.blocks.get(b).map_or("?", |d| d.name.as_str());
    let mut cells: Vec<Vec<String>> = vec![vec![String::new(); columns]; threads.width()];
    for x in threads.instances() {
        if let Some(k) = column(x).filter(|&k| k < columns) {
            cells[x.thread][k] = name(threads.block(x)).to_string();
        }
    }
    let widths: Vec<usize> = (0..columns)
        .map(|k| {
            cells
                .iter()
                .map(|row| row[k].chars().count())
                .max()
                .unwrap_or(0)
                .max((k + 1).to_string().len())
        })
        .collect();
    let lane_width = "thread".len();
    let mut out = String::new();
    let mut header = format!("{:<lane_width$}", "thread");
    for (k, w) in widths.iter().enumerate() {
        header.push_str(&format!(" | {:<w$}", k + 1));
    }
    out.push_str(header.trim_end());
    for (t, row) in cells.iter().enumerate() {
        let mut line = format!("\n{t:<lane_width$}");
        for (cell, w) in row.iter().zip(&widths) {
            line.push_str(&format!(" | {cell:<w$}"));
        }
        out.push_str(line.trim_end());
    }
    out
}

/// Checks a hand-written thread table (rows `LANE | cell | cell | …`, a cell a
/// block name or empty; a header row starting with `thread` is skipped) against
/// `relation`: every lane's cells, read left to right, are its sequence, and two
/// instances share a column iff they are converged.
pub fn check_table(
    body: &Body,
    threads: &Threads,
    relation: &ConvergedWith,
    rows: &[String],
) -> Result<(), String> {
    let name = |b: Block| body.blocks.get(b).map_or("?", |d| d.name.as_str());
    let mut column_of: BTreeMap<DynamicInstance, usize> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for row in rows {
        let mut cells = row.split('|').map(str::trim);
        let lane_text = cells.next().unwrap_or("");
        if lane_text == "thread" || lane_text.is_empty() {
            continue;
        }
        let lane: usize = lane_text
            .parse()
            .map_err(|_| format!("'{lane_text}' is not a lane number"))?;
        let seq = threads
            .blocks
            .get(lane)
            .ok_or_else(|| format!("the run has no lane {lane}"))?;
        if !seen.insert(lane) {
            return Err(format!("lane {lane} is listed twice"));
        }
        let listed: Vec<(usize, &str)> = cells.enumerate().filter(|(_, c)| !c.is_empty()).collect();
        let names: Vec<&str> = listed.iter().map(|(_, c)| *c).collect();
        let ran: Vec<&str> = seq.iter().map(|&b| name(b)).collect();
        if names != ran {
            return Err(format!(
                "lane {lane} executed {} but the table lists {}",
                ran.join(" "),
                names.join(" ")
            ));
        }
        for (index, (column, _)) in listed.into_iter().enumerate() {
            column_of.insert(
                DynamicInstance {
                    thread: lane,
                    index,
                },
                column,
            );
        }
    }
    if seen.len() != threads.width() {
        return Err(format!(
            "the table lists {} lanes, the run has {}",
            seen.len(),
            threads.width()
        ));
    }
    let show = |x: DynamicInstance| {
        format!(
            "{} (lane {}, #{})",
            name(threads.block(x)),
            x.thread,
            x.index + 1
        )
    };
    let all: Vec<DynamicInstance> = threads.instances().collect();
    for (i, &a) in all.iter().enumerate() {
        for &b in &all[i + 1..] {
            if a.thread == b.thread || threads.block(a) != threads.block(b) {
                continue;
            }
            let same_column = column_of.get(&a) == column_of.get(&b);
            let converged = relation.converged(a, b);
            if same_column != converged {
                return Err(format!(
                    "{} and {} are {}converged, the table puts them in {} columns",
                    show(a),
                    show(b),
                    if converged { "" } else { "not " },
                    if same_column { "one" } else { "different" }
                ));
            }
        }
    }
    Ok(())
}

/// The parameter shapes a run vouches for: an argument given the same in every
/// lane (`--arg n=4`) is uniform; per-lane and missing arguments are varying.
pub fn init_from_config(module: &Module, func: FuncId, config: &crate::RunConfig) -> InitShapes {
    let data = &module.functions[func];
    let body = data.body.as_ref();
    InitShapes {
        params: data
            .params
            .iter()
            .enumerate()
            .map(|(n, p)| {
                let name = body.and_then(|b| b.value_name(p.value)).unwrap_or("");
                let given = config
                    .args
                    .get(name)
                    .or_else(|| config.args.get(&n.to_string()));
                match given {
                    Some(crate::config::ArgValue::Uniform(_)) => {
                        pllvm_analysis::shape::Shape::Uniform
                    }
                    _ => pllvm_analysis::shape::Shape::Varying,
                }
            })
            .collect(),
    }
}

/// The report of `pllvm run --convergence`: the document's thread table for the
/// documented DFS's hierarchy, the hierarchies compared, and per block whether it
/// behaved m-converged, what `llvm` claims (for `init`), and how lock step compares
/// with the maximal converged-with relation; disagreements are marked `!`.
pub fn report(
    module: &Module,
    func: FuncId,
    body: &Body,
    threads: &Threads,
    init: &InitShapes,
) -> String {
    let all = hierarchies(body, 5_000);
    let rels = relations(threads, &all);
    let mut out = String::new();
    let (Some(documented), Some(relation)) = (all.first(), rels.first()) else {
        return out;
    };
    let order = convergence_before(threads, relation);
    let names = |h: &CycleInfo| {
        let n = header_names(body, h);
        if n.is_empty() {
            "no cycles".to_string()
        } else {
            format!("headers {}", n.join(", "))
        }
    };
    out.push_str(&format!(
        "convergence (LLVM \"Convergence and Uniformity\"), maximal converged-with for the documented DFS ({}):\n",
        names(documented)
    ));
    out.push_str(&table(body, threads, relation, &order));
    out.push_str("\nlock step (one column per trace row):\n");
    out.push_str(&lock_step_table(body, threads));
    out.push('\n');
    // The check compares every two instances of a block: kept to small runs.
    if threads.instances().count() <= 4_000 {
        match check_maximal_definition(threads, documented, relation, &order) {
            Ok(()) => out.push_str(
                "definition check: the relation is its own fixed point and convergence-before a strict partial order\n",
            ),
            Err(why) => out.push_str(&format!("! the relation breaks the definition: {why}\n")),
        }
    }
    let listed: Vec<String> = all.iter().map(names).collect();
    out.push_str(&format!(
        "hierarchies compared: {} ({})\n",
        all.len(),
        listed.join("; ")
    ));
    let llvm = llvm_m_converged(module, func, init, documented.clone()).ok();
    let rows = compare(threads, &rels, 0, llvm.as_ref());
    let name = |b: Block| body.blocks.get(b).map_or("?", |d| d.name.as_str());
    let width = rows
        .iter()
        .map(|r| name(r.block).chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    out.push_str(&format!(
        "  {:<width$} | inst | m-converged | llvm | classes | lock-step rows | lock step vs converged-with\n",
        "block"
    ));
    let show = |x: DynamicInstance| format!("lane {} #{}", x.thread, x.index + 1);
    let mut disagreements = 0;
    for r in &rows {
        let verdict = match (r.joined_not_converged, r.converged_not_joined) {
            (None, None) => "same".to_string(),
            (Some((a, b)), _) => format!("joined {} and {}, not converged", show(a), show(b)),
            (None, Some((a, b))) => format!("converged {} and {}, run apart", show(a), show(b)),
        };
        let llvm_wrong = r.llvm_m_converged == Some(true) && !r.m_converged;
        let flag = !r.lock_step_agrees() || llvm_wrong;
        disagreements += usize::from(flag);
        out.push_str(&format!(
            "{} {:<width$} | {:<4} | {:<11} | {:<4} | {:<7} | {:<14} | {}{}\n",
            if flag { "!" } else { " " },
            name(r.block),
            r.instances,
            if r.m_converged { "yes" } else { "no" },
            match r.llvm_m_converged {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            },
            r.converged_classes,
            r.lock_step_groups,
            verdict,
            if llvm_wrong {
                "; llvm calls it m-converged"
            } else {
                ""
            }
        ));
    }
    out.push_str(&format!("disagreements: {disagreements}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pllvm_semantics::cfg::Graph;

    /// A hierarchy and paths over named nodes: `succs` as `"A: B C; B: A"`.
    fn graph(spec: &str) -> (Vec<String>, Graph) {
        let mut names: Vec<String> = Vec::new();
        let mut edges: Vec<(String, Vec<String>)> = Vec::new();
        for part in spec.split(';') {
            let Some((n, s)) = part.split_once(':') else {
                continue;
            };
            let n = n.trim().to_string();
            if !names.contains(&n) {
                names.push(n.clone());
            }
            edges.push((n, s.split_whitespace().map(str::to_string).collect()));
        }
        let id = |n: &str, names: &[String]| names.iter().position(|m| m == n).unwrap_or(0) as u32;
        let mut succs = vec![Vec::new(); names.len()];
        for (n, ss) in &edges {
            for s in ss {
                let t = id(s, &names);
                succs[id(n, &names) as usize].push(t);
            }
        }
        (names, Graph::from_succs(succs))
    }

    fn paths(names: &[String], rows: &[&str]) -> Threads {
        Threads::from_paths(
            rows.iter()
                .map(|r| {
                    r.split_whitespace()
                        .map(|n| {
                            Block::from_u32(names.iter().position(|m| m == n).unwrap_or(0) as u32)
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// Checks the relation of `rows` for the hierarchy with headers `headers`
    /// against a table written like the document's (same column: converged).
    fn check(spec: &str, headers: &[&str], rows: &[&str], table: &[&str]) {
        let (names, g) = graph(spec);
        let (all, complete) = all_hierarchies(&g, 0, 10_000);
        assert!(complete);
        let want: BTreeSet<u32> = headers
            .iter()
            .map(|h| names.iter().position(|m| m == h).unwrap_or(99) as u32)
            .collect();
        let Some(h) = all.iter().find(|h| {
            h.ids()
                .map(|c| h.cycle(c).header)
                .collect::<BTreeSet<u32>>()
                == want
        }) else {
            panic!("no hierarchy with headers {headers:?}");
        };
        let threads = paths(&names, rows);
        let relation = maximal_converged_with(&threads, h);
        let order = convergence_before(&threads, &relation);
        check_maximal_definition(&threads, h, &relation, &order).unwrap();
        // The expected columns: the k-th non-empty cell of row t is instance k.
        let mut column = BTreeMap::new();
        for (t, row) in table.iter().enumerate() {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let mut k = 0;
            for (c, cell) in cells.iter().enumerate() {
                if !cell.is_empty() {
                    column.insert(
                        DynamicInstance {
                            thread: t,
                            index: k,
                        },
                        c,
                    );
                    k += 1;
                }
            }
            assert_eq!(k, threads.blocks[t].len(), "row {t} of the table");
        }
        for a in threads.instances() {
            for b in threads.instances() {
                if a.thread != b.thread && threads.block(a) == threads.block(b) {
                    assert_eq!(
                        relation.converged(a, b),
                        column[&a] == column[&b],
                        "{a:?} {b:?}"
                    );
                }
            }
        }
    }

    // "Maximal Convergence": the natural loop, the document's table.
    #[test]
    fn natural_loop_thread_table() {
        check(
            "Entry: H; H: B L; B: L; L: H Exit; Exit:",
            &["H"],
            &["Entry H B L H L Exit", "Entry H L H B L H B L Exit"],
            &[
                "Entry | H | B | L | H |   | L |   |   |   | Exit",
                "Entry | H |   | L | H | B | L | H | B | L | Exit",
            ],
        );
    }

    // Figure convergence-both-diverged-nested: headers R and S, three threads.
    #[test]
    fn nested_irreducible_cycles_with_headers_r_and_s() {
        check(
            "Entry: R P; R: S; S: P Exit; P: Q; Q: S R; Exit:",
            &["R", "S"],
            &[
                "Entry P Q S P Q R S Exit",
                "Entry P Q R S Exit",
                "Entry R S Exit",
            ],
            &[
                "Entry | P | Q | S | P | Q | R | S | Exit",
                "Entry | P | Q |   |   |   | R | S | Exit",
                "Entry |   |   |   |   |   | R | S | Exit",
            ],
        );
    }

    // "Diverged Entry Criterion": the closed path P -> Q -> R -> S, both hierarchies.
    #[test]
    fn closed_path_tables_for_both_hierarchies() {
        let spec = "Entry: P R; P: Q; Q: R S; R: S; S: P Exit; Exit:";
        let rows = ["Entry P Q R S P Q R S Exit", "Entry P Q S P Q R S Exit"];
        check(
            spec,
            &["R", "S"],
            &rows,
            &[
                "Entry | P | Q |   |   |   | R | S | P | Q | R | S |   | Exit",
                "Entry | P | Q | S | P | Q | R | S |   |   |   |   |   | Exit",
            ],
        );
        check(
            spec,
            &["P"],
            &rows,
            &[
                "Entry | P | Q | R | S | P | Q | R | S | Exit",
                "Entry | P | Q |   | S | P | Q | R | S | Exit",
            ],
        );
    }

    // "Diverged Paths reaching a Cycle": threads enter at P and at R.
    #[test]
    fn diverged_paths_reaching_a_cycle_from_entry() {
        let spec = "Entry: P R; P: Q; Q: R S; R: S; S: P Exit; Exit:";
        let rows = ["Entry P Q R S P Q S Exit", "Entry R S P Q S P Q R S Exit"];
        check(
            spec,
            &["P"],
            &rows,
            &[
                "Entry |   |   | P | Q | R | S | P | Q |   | S | Exit",
                "Entry | R | S | P | Q |   | S | P | Q | R | S | Exit",
            ],
        );
        check(
            spec,
            &["R", "S"],
            &rows,
            &[
                "Entry | P | Q | R | S | P | Q | S |   |   |   |   | Exit",
                "Entry |   |   | R | S | P | Q | S | P | Q | R | S | Exit",
            ],
        );
    }

    // "Convergence", the convergence order example: with Q1 ~ Q2 and S1 ~ S2 the
    // order includes P -> Q2, Q1 -> R, P -> R, P -> T.
    #[test]
    fn convergence_order_example() {
        let (names, g) = graph("Entry: P S; P: Q; Q: R; R: S; S: T Exit; T: Exit; Exit:");
        let h = CycleInfo::of_graph(&g, 0);
        assert!(h.is_empty());
        let threads = paths(&names, &["Entry S T Exit", "Entry Q R S Exit", "Entry P Q"]);
        let relation = maximal_converged_with(&threads, &h);
        let order = convergence_before(&threads, &relation);
        let x = |thread, index| DynamicInstance { thread, index };
        let (p, q1, q2, r, s1, s2, t) = (
            x(2, 1),
            x(2, 2),
            x(1, 1),
            x(1, 2),
            x(1, 3),
            x(0, 1),
            x(0, 2),
        );
        assert!(relation.converged(q1, q2) && relation.converged(s1, s2));
        for (a, b) in [(p, q2), (q1, r), (p, r), (p, t), (r, s2)] {
            assert_eq!(order.before(&relation, a, b), Some(true), "{a:?} {b:?}");
        }
        for (a, b) in [(r, p), (q1, q2), (t, s1), (s1, r)] {
            assert_eq!(order.before(&relation, a, b), Some(false), "{a:?} {b:?}");
        }
        assert!(check_maximal_definition(&threads, &h, &relation, &order).is_ok());
    }

    #[test]
    fn a_wrong_relation_breaks_the_definition() {
        let (names, g) = graph("Entry: H; H: B L; B: L; L: H Exit; Exit:");
        let h = CycleInfo::of_graph(&g, 0);
        let threads = paths(&names, &["Entry H L H L Exit", "Entry H L Exit"]);
        let mut relation = maximal_converged_with(&threads, &h);
        // Converge lane 1's L with lane 0's second L instead of its first.
        let second = relation.class_of(DynamicInstance {
            thread: 0,
            index: 4,
        });
        let first = relation.class_of(DynamicInstance {
            thread: 0,
            index: 2,
        });
        relation.class[1][2] = second;
        relation.classes[first].members.retain(|x| x.thread != 1);
        relation.classes[second].members.push(DynamicInstance {
            thread: 1,
            index: 2,
        });
        let order = convergence_before(&threads, &relation);
        assert!(check_maximal_definition(&threads, &h, &relation, &order).is_err());
    }
}
