//! Token classes: which dynamic instances of the convergence control
//! intrinsics are converged, by the rules `crate::controlled` documents (LLVM's
//! convergent operations document, "Convergence Control Intrinsics"), per lane
//! (`LaneTokens`) and followed step by step through a run ([`TokenTracker`],
//! which the divergence observer reads to compare lanes within one class).

use pllvm_semantics::convergence_control::{
    ConvergenceControl as Control, Point, Regions, control_bundles,
};
use pllvm_semantics::ir::{Block, Body, Inst, Module};
use std::collections::HashMap;

pub(crate) fn control_of(module: &Module, body: &Body, inst: Inst) -> Option<Control> {
    Control::of_call(module, body, inst)
}

/// The token a call names in its `"convergencectrl"` bundle: the call that
/// defined it (the verifier checked the bundle's form).
pub(crate) fn token_of(body: &Body, inst: Inst) -> Option<Inst> {
    let args = control_bundles(body, inst).next()?;
    match body.values[*args.first()?].def {
        pllvm_semantics::ir::ValueDef::Inst(def) => Some(def),
        _ => None,
    }
}

/// A class of converged dynamic instances of a token-producing call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TokenClass(pub usize);

/// The token classes interned: (producer, step) for `entry` and `anchor`,
/// (producer, parent class, n) for `loop`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Classes(HashMap<(Inst, usize, usize, usize), TokenClass>);

impl Classes {
    fn intern(&mut self, key: (Inst, usize, usize, usize)) -> TokenClass {
        let next = TokenClass(self.0.len());
        *self.0.entry(key).or_insert(next)
    }
}

/// One lane's token values: the class of its latest instance of each defining
/// call, and how often it executed each heart with each parent class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneTokens {
    tokens: HashMap<Inst, TokenClass>,
    iterations: HashMap<(Inst, TokenClass), usize>,
}

impl LaneTokens {
    /// The lane executes `inst` in `step`, by the rules of the module
    /// documentation: the class of this execution when `inst` is a controlled
    /// operation (a heart's own class, any other's token operand's), `None`
    /// otherwise. A token definition records the class it produces.
    /// `control` is the intrinsic `inst` calls, `token` the definition of the
    /// token its bundle names.
    pub(crate) fn execute(
        &mut self,
        classes: &mut Classes,
        inst: Inst,
        (control, token): (Option<Control>, Option<Inst>),
        step: usize,
    ) -> Option<TokenClass> {
        let parent = token.and_then(|d| self.tokens.get(&d).copied());
        let produced = match (control, parent) {
            (Some(Control::Entry | Control::Anchor), _) => {
                Some(classes.intern((inst, step, usize::MAX, 0)))
            }
            (Some(Control::Loop), Some(p)) => {
                let n = self.iterations.entry((inst, p)).or_insert(0);
                *n += 1;
                Some(classes.intern((inst, usize::MAX, p.0, *n)))
            }
            _ => None,
        };
        if let Some(class) = produced {
            self.tokens.insert(inst, class);
        }
        match control {
            Some(Control::Loop) => produced,
            Some(_) => None,
            None => parent,
        }
    }
}

/// The token classes of a run followed step by step, for the soundness check
/// of the `llvm` analysis's controlled rules (docs/analyses.md, "Convergence
/// control tokens"): a claim that an instruction in the convergence region of
/// token definitions is uniform speaks of converged dynamic instances only, so
/// its lanes are compared within the groups of lanes whose tokens of those
/// definitions are of one class ([`TokenTracker::group`]). Lanes a schedule
/// ran together against their tokens (a merged violation, [`crate::controlled`]) are not compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenTracker {
    regions: Regions,
    /// Per call that defines or uses a token: the intrinsic and the token's
    /// definition.
    calls: HashMap<Inst, (Option<Control>, Option<Inst>)>,
    classes: Classes,
    lanes: Vec<LaneTokens>,
    /// The steps followed so far.
    steps: usize,
}

impl TokenTracker {
    /// A tracker for a run of `body` over `width` lanes; `None` when the
    /// function defines no token.
    pub fn new(module: &Module, body: &Body, width: usize) -> Option<TokenTracker> {
        let cfg = pllvm_semantics::cfg::Cfg::new(body);
        let regions = Regions::of(module, body, cfg.graph());
        let calls = body
            .layout
            .iter()
            .flat_map(|&b| body.blocks[b].body.iter().copied())
            .map(|i| (i, (control_of(module, body, i), token_of(body, i))))
            .filter(|(_, c)| c.0.is_some() || c.1.is_some())
            .collect();
        (!regions.is_empty()).then(|| TokenTracker {
            regions,
            calls,
            classes: Classes::default(),
            lanes: vec![LaneTokens::default(); width],
            steps: 0,
        })
    }

    /// Follows one step: `block` executed for the lanes of `active`.
    pub fn step(&mut self, body: &Body, block: Block, active: &[bool]) {
        let step = self.steps;
        self.steps += 1;
        for inst in &body.blocks[block].body {
            let Some(&call) = self.calls.get(inst) else {
                continue;
            };
            for (lane, tokens) in self.lanes.iter_mut().enumerate() {
                if active.get(lane).copied().unwrap_or(false) {
                    tokens.execute(&mut self.classes, *inst, call, step);
                }
            }
        }
    }

    /// The group `lane` belongs to at `inst` in `block`: the classes of its
    /// tokens of every definition whose region holds `inst` (empty outside
    /// every region: all lanes in one group).
    pub fn group(
        &self,
        body: &Body,
        block: Block,
        inst: Inst,
        lane: usize,
    ) -> Vec<Option<TokenClass>> {
        let p = Point::of(body, block, inst);
        self.regions
            .holding(p)
            .map(|r| {
                self.lanes
                    .get(lane)
                    .and_then(|t| t.tokens.get(&r.def).copied())
            })
            .collect()
    }
}
