//! On-demand SSA construction for one variable over the current CFG (after Braun
//! et al., "Simple and Efficient Construction of SSA Form", CC 2013).
//!
//! The transforms change control flow, and a value they need at a block (an edge
//! predicate of thesis §8.4, a tracked live-out of §9.1) is then assigned in some
//! blocks and read in others that the assigning blocks no longer dominate. An
//! [`SsaVar`] records the assignments (a value at the start or at the end of a
//! block) and answers reads with the reaching value, inserting phis where paths
//! with different values meet. Reads are iterative (no recursion depth on long
//! chains of blocks); [`SsaVar::finish`] removes the phis that turned out trivial
//! (every arm the same value or the phi itself) and rewrites their uses.

use crate::edit::Editor;
use pllvm_semantics::ir::{Block, InstKind, Value};
use pllvm_semantics::types::Ty;
use std::collections::{HashMap, HashSet};

/// One variable being put into SSA form (see the module doc).
pub struct SsaVar {
    ty: Ty,
    stem: String,
    start_defs: HashMap<Block, Value>,
    end_defs: HashMap<Block, Value>,
    at_start: HashMap<Block, Value>,
    phis: Vec<(Block, Value)>,
}

impl SsaVar {
    /// A variable of type `ty`; its phis are named after `stem`.
    pub fn new(ty: Ty, stem: &str) -> SsaVar {
        SsaVar {
            ty,
            stem: stem.to_string(),
            start_defs: HashMap::new(),
            end_defs: HashMap::new(),
            at_start: HashMap::new(),
            phis: Vec::new(),
        }
    }

    /// The variable holds `v` from the start of `block` on (unless `block` assigns it
    /// again at its end).
    pub fn define_at_start(&mut self, block: Block, v: Value) {
        self.start_defs.insert(block, v);
    }

    /// The variable holds `v` at the end of `block`.
    pub fn define_at_end(&mut self, block: Block, v: Value) {
        self.end_defs.insert(block, v);
    }

    /// The value at the end of `block`.
    pub fn read_at_end(
        &mut self,
        ed: &mut Editor,
        preds: &HashMap<Block, Vec<Block>>,
        block: Block,
    ) -> Value {
        if let Some(&v) = self.end_defs.get(&block) {
            return v;
        }
        self.read_at_start(ed, preds, block)
    }

    /// The value at the start of `block`. A block without predecessors and without
    /// an assignment reads `undef`.
    pub fn read_at_start(
        &mut self,
        ed: &mut Editor,
        preds: &HashMap<Block, Vec<Block>>,
        block: Block,
    ) -> Value {
        // Pending phis whose arms still need reading.
        let mut pending: Vec<(Block, Value)> = Vec::new();
        let result = self.resolve(ed, preds, block, &mut pending);
        while let Some((b, phi)) = pending.pop() {
            let mut arms = Vec::new();
            for &p in preds.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                let v = match self.end_defs.get(&p) {
                    Some(&v) => v,
                    None => self.resolve(ed, preds, p, &mut pending),
                };
                arms.push((v, p));
            }
            let inst = ed.body().def_inst(phi);
            if let Some(inst) = inst
                && let InstKind::Phi { incoming, .. } = &mut ed.body_mut().insts[inst].kind
            {
                *incoming = arms;
            }
        }
        result
    }

    /// The value at the start of `block`, walking single-predecessor chains
    /// iteratively; a join gets a phi placeholder pushed on `pending`.
    fn resolve(
        &mut self,
        ed: &mut Editor,
        preds: &HashMap<Block, Vec<Block>>,
        block: Block,
        pending: &mut Vec<(Block, Value)>,
    ) -> Value {
        let mut chain = Vec::new();
        let mut b = block;
        let value = loop {
            if let Some(&v) = self.start_defs.get(&b) {
                break v;
            }
            if let Some(&v) = self.at_start.get(&b) {
                break v;
            }
            let ps = preds.get(&b).map(Vec::as_slice).unwrap_or(&[]);
            match ps {
                [] => break ed.undef(self.ty),
                [p] => {
                    chain.push(b);
                    if let Some(&v) = self.end_defs.get(p) {
                        break v;
                    }
                    b = *p;
                }
                _ => {
                    let phi = ed.phi(b, self.ty, Vec::new(), None, &self.stem);
                    self.at_start.insert(b, phi);
                    self.phis.push((b, phi));
                    pending.push((b, phi));
                    break phi;
                }
            }
        };
        for c in chain {
            self.at_start.insert(c, value);
        }
        value
    }

    /// Removes the trivial phis this variable created (all arms equal, ignoring
    /// the phi itself), repeatedly, and rewrites their uses everywhere.
    pub fn finish(self, ed: &mut Editor) {
        finish_all(vec![self], ed);
    }

    /// Adds to `replace` every phi of this variable that is trivial once the
    /// replacements already in `replace` are applied; whether any was added.
    fn collect_trivial(&self, ed: &mut Editor, replace: &mut HashMap<Value, Value>) -> bool {
        let mut added = false;
        for &(_, phi) in &self.phis {
            if replace.contains_key(&phi) {
                continue;
            }
            let Some(inst) = ed.body().def_inst(phi) else {
                continue;
            };
            let InstKind::Phi { incoming, .. } = &ed.body().insts[inst].kind else {
                continue;
            };
            let mut same: Option<Value> = None;
            let mut trivial = true;
            for &(v, _) in incoming {
                let v = resolve_chain(replace, v);
                if v == phi || Some(v) == same {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(v);
            }
            if trivial {
                let to = match same {
                    Some(v) => v,
                    None => ed.undef(self.ty),
                };
                replace.insert(phi, to);
                added = true;
            }
        }
        added
    }
}

/// The end of a replacement chain `v -> w -> ...` in `replace`.
fn resolve_chain(replace: &HashMap<Value, Value>, mut v: Value) -> Value {
    while let Some(&n) = replace.get(&v) {
        v = n;
    }
    v
}

/// [`SsaVar::finish`] for many variables at once: the trivial phis of all of them
/// are found first and the body is rewritten in one pass, so that a transform with
/// one variable per block stays linear in the size of the body.
pub fn finish_all(vars: Vec<SsaVar>, ed: &mut Editor) {
    let mut replace: HashMap<Value, Value> = HashMap::new();
    let mut changed = true;
    while changed {
        changed = false;
        for var in &vars {
            changed |= var.collect_trivial(ed, &mut replace);
        }
    }
    if replace.is_empty() {
        return;
    }
    let resolved: HashMap<Value, Value> = replace
        .keys()
        .map(|&k| (k, resolve_chain(&replace, k)))
        .collect();
    ed.replace_uses(&resolved);
    let touched: HashSet<Block> = vars
        .iter()
        .flat_map(|var| var.phis.iter())
        .filter(|(_, phi)| resolved.contains_key(phi))
        .map(|&(b, _)| b)
        .collect();
    for b in touched {
        let body = ed.body_mut();
        let keep: Vec<_> = body.blocks[b]
            .phis
            .iter()
            .copied()
            .filter(|&i| {
                body.insts[i]
                    .result
                    .is_none_or(|r| !resolved.contains_key(&r))
            })
            .collect();
        body.blocks[b].phis = keep;
    }
}
