//! The convergence control intrinsics and the `"convergencectrl"` operand
//! bundle (LLVM's convergent operations document, "Convergence Control
//! Intrinsics"), as the verifier's static rules (`verify::tokens`) and the
//! controlled relation of a run (`pllvm_interp::controlled`) read them, and the
//! convergence regions of the tokens they define ([`Regions`]), which the `llvm`
//! analysis's controlled rules and the soundness check of its claims read.

use crate::cfg::Graph;
use crate::ir::{Body, Inst, InstKind, Module, Value, ValueDef};

/// The tag of the operand bundle that binds a convergent call to a token.
pub const CONVERGENCECTRL: &str = "convergencectrl";

/// A call to one of the convergence control intrinsics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvergenceControl {
    /// `llvm.experimental.convergence.entry`: ties the function's dynamic
    /// instances to the caller's.
    Entry,
    /// `llvm.experimental.convergence.anchor`: an implementation-defined set.
    Anchor,
    /// `llvm.experimental.convergence.loop`: one more iteration of a cycle.
    Loop,
}

impl ConvergenceControl {
    /// The intrinsic's name.
    pub fn name(self) -> &'static str {
        match self {
            ConvergenceControl::Entry => "llvm.experimental.convergence.entry",
            ConvergenceControl::Anchor => "llvm.experimental.convergence.anchor",
            ConvergenceControl::Loop => "llvm.experimental.convergence.loop",
        }
    }

    /// The intrinsic `inst` calls, if it calls one.
    pub fn of_call(module: &Module, body: &Body, inst: Inst) -> Option<Self> {
        let InstKind::Call { callee, .. } = &body.insts[inst].kind else {
            return None;
        };
        let name = module.functions.get(*callee)?.name.as_str();
        [
            ConvergenceControl::Entry,
            ConvergenceControl::Anchor,
            ConvergenceControl::Loop,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }
}

/// The `"convergencectrl"` bundles of a call (none for another instruction).
pub fn control_bundles(body: &Body, inst: Inst) -> impl Iterator<Item = &[Value]> + '_ {
    let bundles = match &body.insts[inst].kind {
        InstKind::Call { bundles, .. } => bundles.as_slice(),
        _ => &[],
    };
    bundles
        .iter()
        .filter(|b| b.tag == CONVERGENCECTRL)
        .map(|b| b.args.as_slice())
}

/// A program point: an instruction of a block (its index among the block's phis
/// and body, in order), or the block's terminator ([`Point::term`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The block (its CFG node).
    pub block: u32,
    /// The instruction's index, `usize::MAX` for the terminator.
    pub pos: usize,
}

impl Point {
    /// The terminator of `block`: after every instruction.
    pub fn term(block: u32) -> Point {
        Point {
            block,
            pos: usize::MAX,
        }
    }

    /// The point of `inst` in its block `block` of `body`.
    pub fn of(body: &Body, block: crate::ir::Block, inst: Inst) -> Point {
        let data = &body.blocks[block];
        let pos = data
            .phis
            .iter()
            .chain(&data.body)
            .position(|&x| x == inst)
            .unwrap_or(usize::MAX);
        Point {
            block: block.as_u32(),
            pos,
        }
    }
}

/// The convergence region of one token (LLVM's convergent operations document,
/// "Convergence Region": the program points dominated by the token's definition
/// from which a use of the token can be reached).
///
/// A point that reaches a use without passing the definition is dominated by it
/// in a valid program (else an entry path to that use would avoid the
/// definition), so the region is computed as the points that reach a use
/// without passing the definition again: a backward search from the uses that
/// stops at the definition's block, O(V + E). The uses are the
/// `"convergencectrl"` bundles naming the token (the verifier keeps tokens out
/// of every other operand, phis and selects included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The defining call (`entry`, `anchor` or `loop`).
    pub def: Inst,
    /// Its point.
    pub at: Point,
    /// The blocks holding a use, with the position of the last use there.
    last_use: Vec<(u32, usize)>,
    /// Per block, one bit: a use is reachable from the block's end without
    /// passing the definition (a bit set, so that the regions of a nest of `d`
    /// hearts cost `d·V/8` bytes, not `d·V`).
    live_out: Vec<u64>,
}

impl Region {
    /// Whether `p` is in the region: after the definition in its block, and
    /// before a use in `p`'s block or where a use is reachable from the block's end.
    pub fn contains(&self, p: Point) -> bool {
        if p.block == self.at.block && p.pos <= self.at.pos {
            return false;
        }
        let b = p.block as usize;
        self.live_out
            .get(b / 64)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
            || self
                .last_use
                .iter()
                .any(|&(b, last)| b == p.block && p.pos <= last)
    }

    /// Whether a use of the token lies in a block outside `inside`.
    pub fn used_outside(&self, inside: impl Fn(u32) -> bool) -> bool {
        self.last_use.iter().any(|&(b, _)| !inside(b))
    }
}

/// The convergence regions of a function's token definitions, in layout order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    regions: Vec<Region>,
}

impl Regions {
    /// The regions of the `entry`, `anchor` and `loop` calls of `body`, whose
    /// CFG is `graph`.
    pub fn of(module: &Module, body: &Body, graph: &Graph) -> Regions {
        let mut defs: Vec<(Inst, Point)> = Vec::new();
        let mut uses: Vec<(Inst, Point)> = Vec::new();
        for &b in &body.layout {
            let block = &body.blocks[b];
            for (pos, &i) in block.phis.iter().chain(&block.body).enumerate() {
                let at = Point {
                    block: b.as_u32(),
                    pos,
                };
                if ConvergenceControl::of_call(module, body, i).is_some() {
                    defs.push((i, at));
                }
                for args in control_bundles(body, i) {
                    for &t in args {
                        if let ValueDef::Inst(def) = body.values[t].def {
                            uses.push((def, at));
                        }
                    }
                }
            }
        }
        let regions = defs
            .into_iter()
            .map(|(def, at)| {
                let mine: Vec<Point> = uses
                    .iter()
                    .filter(|(d, _)| *d == def)
                    .map(|(_, p)| *p)
                    .collect();
                Region::search(graph, def, at, &mine)
            })
            .collect();
        Regions { regions }
    }

    /// Whether the function defines no token.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Every region.
    pub fn iter(&self) -> impl Iterator<Item = &Region> {
        self.regions.iter()
    }

    /// The regions that hold `p`.
    pub fn holding(&self, p: Point) -> impl Iterator<Item = &Region> {
        self.regions.iter().filter(move |r| r.contains(p))
    }
}

impl Region {
    /// The region of the token `def` defines at `at`, used at `uses`.
    fn search(graph: &Graph, def: Inst, at: Point, uses: &[Point]) -> Region {
        let n = graph.len();
        let mut last_use: Vec<(u32, usize)> = Vec::new();
        for u in uses {
            match last_use.iter_mut().find(|(b, _)| *b == u.block) {
                Some((_, last)) => *last = (*last).max(u.pos),
                None => last_use.push((u.block, u.pos)),
            }
        }
        // Blocks whose start reaches a use without passing the definition: every
        // use block but the definition's own (its uses follow the definition).
        let mut live_in = vec![false; n];
        let mut live_out = vec![0u64; n.div_ceil(64)];
        let mut work: Vec<u32> = Vec::new();
        for &(b, _) in &last_use {
            if b != at.block && !live_in[b as usize] {
                live_in[b as usize] = true;
                work.push(b);
            }
        }
        while let Some(s) = work.pop() {
            for &p in graph.predecessors(s) {
                live_out[p as usize / 64] |= 1 << (p % 64);
                if p != at.block && !live_in[p as usize] {
                    live_in[p as usize] = true;
                    work.push(p);
                }
            }
        }
        Region {
            def,
            at,
            last_use,
            live_out,
        }
    }
}
