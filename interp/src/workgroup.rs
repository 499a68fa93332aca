//! Work-groups of several thread arrays (docs/launch.md, "Work-groups of
//! several warps"): the arrays of one work-group share the group's memory and
//! meet at every barrier.
//!
//! - **Barriers cut a block.** A barrier call is the first command of its block
//!   after [`split_at_barriers`]: the commands before it move nothing, the
//!   commands from it on move to a new block laid out right after, reached by
//!   an unconditional branch. Scheduling that block is then the moment an array
//!   *arrives* at the barrier (Def. 18 still holds per array: the block must be
//!   synchronizing, Def. 17, which the machine checks at the step), and nothing
//!   of the block has run yet.
//! - **Phases.** [`run_group`] runs the group in phases. In a phase every array
//!   that has not ended runs, one after another in array order, on the group's
//!   one [`Memory`] (handed from array to array), until it ends or until the
//!   block its scheduler chose next is a barrier block: it then waits there.
//!   When every array has arrived at a barrier, the phase is over and all
//!   continue, each first stepping the barrier block it waits at. The arrays of
//!   a group reach the same barrier the same number of times, or the run is
//!   undefined: an array that ends while others wait at a barrier, or arrays
//!   waiting at different barriers, is *barrier divergence across thread
//!   arrays*, undefined behaviour of the barrier's call ([W-CMD-CALL], as the
//!   barrier of one array scheduled while not synchronizing is, Def. 18).
//! - **Races.** Within a phase nothing orders two arrays' accesses (no barrier
//!   lies between them), so [`PhaseAccesses`] records, for every byte of a
//!   global, buffer or local object that a `load` or `store` touches, which
//!   array, lane and instruction read it and wrote it in this phase. A write
//!   and another array's read or write of the same byte in one phase is a
//!   [`GroupRace`], reported with both sites as a GPU racecheck tool reports a
//!   shared-memory hazard. Without a race, the arrays' accesses in one phase
//!   touch disjoint bytes or only read shared ones, so running the arrays one
//!   after another gives the memory every interleaving gives: each array's
//!   reads see the bytes as the previous barrier left them (no other array of
//!   the phase writes them), and the writes commute (disjoint bytes). The
//!   lanes' accesses are computed after each step from the block's `load` and
//!   `store` commands, the active mask of the step and each lane's pointer
//!   operand in Δ^W (unchanged during the rest of the step: SSA); atomics
//!   (`atomicrmw`, `cmpxchg`) are not races by definition, and `memset` /
//!   `memcpy` calls are not watched.

use crate::greedy::GreedyFacts;
use crate::machine::{Machine, Outcome, RunError};
use crate::run::Chooser;
use crate::sched::{self, Scheduler};
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, BlockData, Body, FuncId, Inst, InstKind, Module, Terminator};
use pllvm_semantics::memory::{Memory, ObjectKind};
use pllvm_semantics::rules::{Program, Rule, Site, Ub};
use pllvm_semantics::theta::Builtin;
use pllvm_semantics::value::{ObjectId, Val};
use std::collections::HashMap;

/// A module whose barrier calls each begin a block ([`split_at_barriers`]).
#[derive(Clone, Debug)]
pub struct Split {
    /// The module, with the launched function's blocks cut at barrier calls.
    pub module: Module,
    /// For every block of the launched function, the block of the original
    /// module it is (part of): itself, or the block it was cut from.
    pub origin: SecondaryMap<Block, Option<Block>>,
}

impl Split {
    /// The original block that `b` is (part of).
    pub fn original(&self, b: Block) -> Block {
        self.origin.get(b).unwrap_or(b)
    }
}

/// `module` with every barrier call of `func` the first command of its block:
/// a block `A` whose commands `c̄₀ barrier c̄₁` hold a barrier after at least one
/// command becomes `A: c̄₀; br A'` and `A': barrier c̄₁ tmn`, with `A'` laid out
/// right after `A` and named `A.barrier` (`A.barrier.1`, ... when taken); the
/// phis that named `A` as an incoming block name `A'`, the block that now ends
/// with `tmn`. Both keep `A`'s predicate. For one array this changes no lane's
/// path or values: every lane that runs `A` runs `A'` next, `A'` has no phi
/// and `A` dominates it. A predicate defined by a command moved to `A'` would
/// be used before its definition in `A`: such a block is refused.
pub fn split_at_barriers(module: &Module, func: FuncId) -> Result<Split, String> {
    let mut out = module.clone();
    let program = Program::new(module, func).map_err(|e| e.to_string())?;
    let callees = program.callees.clone();
    let mut origin = SecondaryMap::with_default(None);
    let Some(body) = out.functions[func].body.as_mut() else {
        return Ok(Split {
            module: out,
            origin,
        });
    };
    for &b in &body.layout {
        origin[b] = Some(b);
    }
    let mut pos = 0;
    while pos < body.layout.len() {
        let a = body.layout[pos];
        let cut = body.blocks[a]
            .body
            .iter()
            .enumerate()
            .skip(1)
            .find(|&(_, &i)| *callees.get(i) == Some(Builtin::Barrier))
            .map(|(k, _)| k);
        let Some(k) = cut else {
            pos += 1;
            continue;
        };
        let data = &body.blocks[a];
        if let Some(p) = data.predicate
            && data.body[k..]
                .iter()
                .any(|&i| body.insts[i].result == Some(p))
        {
            return Err(format!(
                "block %{}: its predicate is defined after a barrier call in the block, which a work-group of several thread arrays cannot cut there",
                data.name
            ));
        }
        let name = fresh_name(body, &format!("{}.barrier", data.name));
        let tail = BlockData {
            name,
            predicate: data.predicate,
            phis: Vec::new(),
            body: data.body[k..].to_vec(),
            term: data.term.clone(),
        };
        let new = body.blocks.push(tail);
        body.blocks[a].body.truncate(k);
        body.blocks[a].term = Terminator::Br(new);
        for s in body.blocks[new].term.successors() {
            let phis = body.blocks[s].phis.clone();
            for phi in phis {
                if let InstKind::Phi { incoming, .. } = &mut body.insts[phi].kind {
                    for (_, from) in incoming.iter_mut() {
                        if *from == a {
                            *from = new;
                        }
                    }
                }
            }
        }
        body.layout.insert(pos + 1, new);
        origin[new] = Some(origin.get(a).unwrap_or(a));
        // The new block may hold a further barrier after its first command.
        pos += 1;
    }
    Ok(Split {
        module: out,
        origin,
    })
}

/// `stem`, or `stem.N` for the least N that no block of `body` is named.
fn fresh_name(body: &Body, stem: &str) -> String {
    let taken = |n: &str| body.blocks.values().any(|d| d.name == n);
    if !taken(stem) {
        return stem.to_string();
    }
    (1..)
        .map(|n| format!("{stem}.{n}"))
        .find(|n| !taken(n))
        .expect("some suffix is free")
}

/// The barrier blocks of `program` after [`split_at_barriers`]: each block
/// whose first command is a barrier call, with that call.
pub fn barrier_blocks(program: &Program<'_>) -> SecondaryMap<Block, Option<Inst>> {
    let mut calls = SecondaryMap::with_default(None);
    for &b in &program.body.layout {
        if let Some(&first) = program.body.blocks[b].body.first()
            && *program.callees.get(first) == Some(Builtin::Barrier)
        {
            calls[b] = Some(first);
        }
    }
    calls
}

/// One access of one lane, where a [`GroupRace`] names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessSite {
    /// The thread array (its index in the launch).
    pub array: usize,
    /// The lane in it.
    pub lane: usize,
    /// The block scheduled (of the module the launch was given).
    pub block: Block,
    /// The `load` or `store`.
    pub inst: Inst,
    /// Whether it wrote the byte.
    pub write: bool,
}

impl AccessSite {
    /// `write by thread array 3 lane 5 in %for.body`.
    fn render(&self, body: &Body) -> String {
        format!(
            "{} by thread array {} lane {} in %{}",
            if self.write { "write" } else { "read" },
            self.array,
            self.lane,
            body.blocks[self.block].name
        )
    }
}

/// Two thread arrays of one work-group that accessed the same bytes in one
/// phase (between the same two barriers), at least one of them writing: a data
/// race within the work-group (module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRace {
    /// The work-group.
    pub group: u64,
    /// The object: `@global` or the buffer's name.
    pub object: String,
    /// The first byte.
    pub offset: u64,
    /// How many consecutive bytes the same two accesses race on.
    pub len: u64,
    /// The earlier access (in the order the arrays ran).
    pub first: AccessSite,
    /// The later one, of another array.
    pub then: AccessSite,
}

impl GroupRace {
    /// `work-group 2: @lds bytes 0..4: write by thread array 16 lane 0 in %entry and write by thread array 17 lane 0 in %entry, with no barrier between`.
    pub fn render(&self, body: &Body) -> String {
        format!(
            "work-group {}: {} bytes {}..{}: {} and {}, with no barrier between",
            self.group,
            self.object,
            self.offset,
            self.offset + self.len,
            self.first.render(body),
            self.then.render(body)
        )
    }
}

/// Who touched one byte in the current phase.
#[derive(Clone, Copy, Debug, Default)]
struct ByteAccess {
    write: Option<AccessSite>,
    read: Option<AccessSite>,
    /// A read by an array other than `read`'s.
    other_read: Option<AccessSite>,
    /// Whether the byte raced already in this phase (it is counted once).
    raced: bool,
}

/// The accesses of one phase of a work-group, byte by byte, and the races
/// found so far (module documentation).
#[derive(Debug, Default)]
pub struct PhaseAccesses {
    bytes: HashMap<(ObjectId, u64), ByteAccess>,
    /// Races listed (at most `limit`).
    pub races: Vec<GroupRace>,
    /// Bytes that raced.
    pub race_count: u64,
    /// Byte accesses recorded: the work of the race check.
    pub recorded: u64,
    limit: usize,
}

impl PhaseAccesses {
    /// An empty record that lists at most `limit` races.
    pub fn new(limit: usize) -> PhaseAccesses {
        PhaseAccesses {
            limit,
            ..PhaseAccesses::default()
        }
    }

    /// The next phase: the barrier orders everything before it.
    pub fn next_phase(&mut self) {
        self.bytes.clear();
    }

    /// Records `site`'s access to byte `offset` of object `id` (named `name`)
    /// in work-group `group`, and the race it makes with another array's.
    pub fn access(
        &mut self,
        group: u64,
        (id, name): (ObjectId, &dyn Fn() -> String),
        offset: u64,
        site: AccessSite,
    ) {
        self.recorded += 1;
        let entry = self.bytes.entry((id, offset)).or_default();
        let other = |s: &Option<AccessSite>| s.filter(|s| s.array != site.array);
        let conflict = if site.write {
            other(&entry.write)
                .or_else(|| other(&entry.read))
                .or_else(|| other(&entry.other_read))
        } else {
            other(&entry.write)
        };
        if site.write {
            entry.write = Some(site);
        } else if entry.read.is_none() {
            entry.read = Some(site);
        } else if other(&entry.read).is_some() && entry.other_read.is_none() {
            entry.other_read = Some(site);
        }
        let Some(first) = conflict else { return };
        if entry.raced {
            return;
        }
        entry.raced = true;
        self.race_count += 1;
        // Consecutive bytes of the same two accesses are one listed race.
        if let Some(last) = self.races.last_mut()
            && last.group == group
            && last.first == first
            && last.then == site
            && last.offset + last.len == offset
        {
            last.len += 1;
            return;
        }
        if self.races.len() < self.limit {
            self.races.push(GroupRace {
                group,
                object: name(),
                offset,
                len: 1,
                first,
                then: site,
            });
        }
    }
}

/// The name an object has in race reports: `@G` for a global, the buffer's
/// name for an input.
pub fn object_name(mem: &Memory, id: ObjectId) -> String {
    match mem.object(id).map(|o| &o.kind) {
        Some(ObjectKind::Input { name }) => name.clone(),
        Some(kind) => kind.to_string(),
        None => format!("object {}", id.0),
    }
}

/// Records the accesses of the step `machine` just made of block `b` (its
/// `load`s and `store`s under the step's active mask), as array `array` of
/// `group`; `original` maps the block to the given module's.
fn record_step(
    machine: &Machine<'_>,
    b: Block,
    (group, array): (u64, usize),
    original: &dyn Fn(Block) -> Block,
    accesses: &mut PhaseAccesses,
) {
    let Some(row) = machine.trace.last() else {
        return;
    };
    let program = &machine.program;
    let types = program.types();
    let mem = &machine.state.mem;
    for &i in &program.body.blocks[b].body {
        let (ty, ptr, write) = match program.body.insts[i].kind {
            InstKind::Load { ty, ptr, .. } => (ty, ptr, false),
            InstKind::Store { ty, ptr, .. } => (ty, ptr, true),
            _ => continue,
        };
        let size = types.store_size(ty);
        for lane in (0..row.active.len()).filter(|&l| row.active[l]) {
            let Val::Ptr(p) = machine.state.env.lane(ptr, lane) else {
                continue;
            };
            let Some(id) = p.object else { continue };
            if mem
                .object(id)
                .is_none_or(|o| matches!(o.kind, ObjectKind::Alloca { .. }))
            {
                continue;
            }
            let site = AccessSite {
                array,
                lane,
                block: original(b),
                inst: i,
                write,
            };
            let name = || object_name(mem, id);
            for offset in p.offset..p.offset.saturating_add(size) {
                accesses.access(group, (id, &name), offset, site);
            }
        }
    }
}

/// How one array of a group picks its blocks: the unchecked earliest pending
/// block, or a policy checked against Ch. 5 ([`Chooser`]).
enum Policy<'f> {
    Earliest,
    Checked {
        chooser: Box<Chooser<'f>>,
        scheduler: Box<dyn Scheduler>,
    },
}

impl<'f> Policy<'f> {
    fn new(spec: Option<&str>, facts: &'f GreedyFacts) -> Result<Policy<'f>, String> {
        let scheduler: Box<dyn Scheduler> = match spec {
            Some(sched::EARLIEST) => return Ok(Policy::Earliest),
            Some(spec) => sched::builtin(spec)?,
            None => Box::new(sched::Lowest),
        };
        Ok(Policy::Checked {
            chooser: Box::new(Chooser::new(facts, scheduler.lowest_first())),
            scheduler,
        })
    }

    fn choose(&mut self, machine: &Machine<'_>) -> Option<Block> {
        match self {
            Policy::Earliest => sched::earliest_pending(&machine.program, &machine.state),
            Policy::Checked { chooser, scheduler } => {
                chooser.choose(machine, scheduler.as_mut()).map(|(b, _)| b)
            }
        }
    }

    fn stepped(&mut self, b: Block) {
        if let Policy::Checked { chooser, .. } = self {
            chooser.stepped(b);
        }
    }
}

/// Where an array of a group stands between phases.
#[derive(Clone, Debug, PartialEq)]
enum Standing {
    /// It has not run yet.
    Start,
    /// It waits at this barrier block, which it steps first in the next phase.
    AtBarrier(Block),
    /// Its run ended.
    Ended(Outcome),
}

/// What [`run_group`] did.
#[derive(Debug)]
pub struct GroupRun {
    /// Each array's outcome, in array order.
    pub outcomes: Vec<Outcome>,
    /// The group's memory at the end.
    pub memory: Memory,
    /// Phases run (barriers passed + 1).
    pub phases: u64,
}

/// What a group shares: its number, its first array's index in the launch,
/// the scheduler spec, the facts of the schedulers' checks and the map back to
/// the given module's blocks.
pub struct GroupSetting<'a> {
    /// The work-group's number.
    pub group: u64,
    /// The launch index of its first thread array.
    pub first_array: usize,
    /// `--sched` (`None`: lowest, checked).
    pub scheduler: Option<&'a str>,
    /// The facts of the checked schedulers.
    pub facts: &'a GreedyFacts,
    /// The block of the given module each block is (part of).
    pub original: &'a dyn Fn(Block) -> Block,
}

/// Runs the thread arrays `machines` of one work-group in phases on the one
/// memory `memory` (module documentation), recording every phase's accesses in
/// `accesses`. Each machine's own memory is not used. An array that ends in
/// undefined behaviour or a limit stops the group: the arrays waiting at a
/// barrier then end incomplete. A machinery failure names the array.
pub fn run_group(
    machines: &mut [Machine<'_>],
    setting: &GroupSetting<'_>,
    memory: Memory,
    accesses: &mut PhaseAccesses,
) -> Result<GroupRun, (usize, RunError)> {
    let n = machines.len();
    let fail = |w: usize, e: String| {
        (
            setting.first_array + w,
            RunError::BadSchedule(format!("--sched: {e}")),
        )
    };
    let mut policies = Vec::with_capacity(n);
    for w in 0..n {
        policies.push(Policy::new(setting.scheduler, setting.facts).map_err(|e| fail(w, e))?);
    }
    let barriers = match machines.first() {
        Some(m) => barrier_blocks(&m.program),
        None => SecondaryMap::with_default(None),
    };
    let mut standing = vec![Standing::Start; n];
    let mut memory = memory;
    let mut phases = 0;
    loop {
        phases += 1;
        accesses.next_phase();
        for w in 0..n {
            if matches!(standing[w], Standing::Ended(_)) {
                continue;
            }
            let machine = &mut machines[w];
            std::mem::swap(&mut machine.state.mem, &mut memory);
            let first = match standing[w] {
                Standing::AtBarrier(b) => Some(b),
                _ => None,
            };
            let ran = run_phase(
                machine,
                &mut policies[w],
                first,
                &barriers,
                (setting, w),
                accesses,
            );
            std::mem::swap(&mut machine.state.mem, &mut memory);
            standing[w] = ran.map_err(|e| (setting.first_array + w, e))?;
        }
        if let Some(outcomes) = settle(machines, &standing, &barriers, setting.first_array) {
            return Ok(GroupRun {
                outcomes,
                memory,
                phases,
            });
        }
    }
}

/// Runs one array for one phase: first the barrier block it waits at, if any,
/// then until it ends or its next block is a barrier block.
fn run_phase(
    machine: &mut Machine<'_>,
    policy: &mut Policy<'_>,
    first: Option<Block>,
    barriers: &SecondaryMap<Block, Option<Inst>>,
    (setting, w): (&GroupSetting<'_>, usize),
    accesses: &mut PhaseAccesses,
) -> Result<Standing, RunError> {
    let who = (setting.group, setting.first_array + w);
    let mut next = first;
    loop {
        let b = match next.take() {
            Some(b) => b,
            None => {
                if machine.state.all_done() {
                    return Ok(Standing::Ended(Outcome::Returned));
                }
                let Some(b) = policy.choose(machine) else {
                    return Ok(Standing::Ended(Outcome::Incomplete));
                };
                if barriers.get(b).is_some() {
                    return Ok(Standing::AtBarrier(b));
                }
                b
            }
        };
        policy.stepped(b);
        if let Some(outcome) = machine.checked_step(b)? {
            // The step did not complete: it accessed nothing.
            return Ok(Standing::Ended(outcome));
        }
        record_step(machine, b, who, setting.original, accesses);
    }
}

/// After a phase: `None` when every array that has not ended waits at one
/// barrier (the next phase runs), otherwise every array's outcome. An array
/// that ends while others wait, or arrays waiting at different barriers, is
/// barrier divergence across thread arrays (module documentation): the
/// waiting arrays' outcome is that undefined behaviour, unless an array's own
/// run failed first (undefined behaviour, a limit): the waiting arrays then end
/// incomplete.
fn settle(
    machines: &[Machine<'_>],
    standing: &[Standing],
    barriers: &SecondaryMap<Block, Option<Inst>>,
    first_array: usize,
) -> Option<Vec<Outcome>> {
    let waiting: Vec<(usize, Block)> = standing
        .iter()
        .enumerate()
        .filter_map(|(w, s)| match s {
            Standing::AtBarrier(b) => Some((w, *b)),
            _ => None,
        })
        .collect();
    let Some(&(w0, b0)) = waiting.first() else {
        return Some(ended(standing, |_, _| Outcome::Incomplete));
    };
    let failed = standing
        .iter()
        .any(|s| matches!(s, Standing::Ended(o) if *o != Outcome::Returned));
    if failed {
        return Some(ended(standing, |_, _| Outcome::Incomplete));
    }
    let returned = standing
        .iter()
        .position(|s| matches!(s, Standing::Ended(_)));
    let apart = waiting.iter().find(|&&(_, b)| b != b0);
    if returned.is_none() && apart.is_none() {
        return None;
    }
    let program = &machines[w0].program;
    let why = |w: usize, b: Block| match (returned, apart) {
        (Some(r), _) => format!(
            "thread array {} of the work-group returned without reaching this barrier, where thread array {} waits",
            first_array + r,
            first_array + w
        ),
        (None, Some(&(other, ob))) if b == b0 => format!(
            "thread array {} waits at this barrier and thread array {} at the barrier of %{}",
            first_array + w,
            first_array + other,
            program.block_name(ob)
        ),
        _ => format!(
            "thread array {} waits at this barrier and thread array {} at the barrier of %{}",
            first_array + w,
            first_array + w0,
            program.block_name(b0)
        ),
    };
    Some(ended(standing, |w, b| {
        let call = barriers.get(b).expect("a barrier block");
        let lane = machines[w]
            .state
            .next
            .iter()
            .position(|n| *n == pllvm_semantics::rules::Next::Block(b));
        Outcome::Undefined(Ub {
            rule: Rule::WCmdCall,
            lane,
            block: b,
            site: Site::Inst(call),
            message: format!(
                "barrier divergence across thread arrays (a work-group's barrier is reached by all its thread arrays the same number of times, docs/launch.md): {}",
                why(w, b)
            ),
        })
    }))
}

/// Every array's outcome: its own when it ended, `waiting(w, b)` when it waits
/// at barrier block `b`.
fn ended(standing: &[Standing], waiting: impl Fn(usize, Block) -> Outcome) -> Vec<Outcome> {
    standing
        .iter()
        .enumerate()
        .map(|(w, s)| match s {
            Standing::Ended(o) => o.clone(),
            Standing::AtBarrier(b) => waiting(w, *b),
            Standing::Start => Outcome::Incomplete,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pllvm_semantics::text::{parse_module, print_module};

    /// `text`'s first function after [`split_at_barriers`], printed, and the
    /// original name of every block of it.
    fn check(text: &str, expect: &str, origins: &[(&str, &str)]) {
        let (module, _) = parse_module(text).expect("parses");
        let func = module.first_definition().expect("a function");
        let split = split_at_barriers(&module, func).expect("splits");
        let printed = print_module(&split.module);
        assert!(printed.contains(expect), "{printed}");
        let body = split.module.functions[func].body.as_ref().unwrap();
        let names: Vec<(&str, &str)> = body
            .layout
            .iter()
            .map(|&b| {
                let o = split.original(b);
                (body.blocks[b].name.as_str(), body.blocks[o].name.as_str())
            })
            .collect();
        assert_eq!(names, origins);
    }

    /// A barrier after a command begins a block of its own, laid out next,
    /// holding the terminator; the successor's phi names the new block; a
    /// barrier that begins its block already is left.
    #[test]
    fn barriers_after_a_command_begin_a_block() {
        check(
            "define void @k(i32 %x) {
entry:
  %a = add i32 %x, 1
  call void @llvm.nvvm.barrier0()
  %b = add i32 %a, 2
  br label %next
next:
  %p = phi i32 [ %b, %entry ]
  call void @llvm.nvvm.barrier0()
  ret void
}

declare void @llvm.nvvm.barrier0()
",
            "entry:
  %a = add i32 %x, 1
  br label %entry.barrier

entry.barrier:
  call void @llvm.nvvm.barrier0()
  %b = add i32 %a, 2
  br label %next

next:
  %p = phi i32 [ %b, %entry.barrier ]",
            &[
                ("entry", "entry"),
                ("entry.barrier", "entry"),
                ("next", "next"),
            ],
        );
    }
}
