//! Convergence control tokens: the static rules of LLVM's convergent operations
//! document (its sections "Convergence Control Intrinsics", "Uncontrolled
//! Convergent Operations" and "Static Rules"; the convergence and uniformity
//! document, "controlled convergence", summarizes them). docs/language.md,
//! "Convergence control tokens", lists them with an example each.
//!
//! A call is a *convergent operation* when [`crate::theta::is_convergent_call`] says
//! so; it is *controlled* when it carries a `"convergencectrl"` bundle. The
//! rules, each one [`VerifyError`] named after the document's wording:
//!
//! - **Tokens are not data**: no parameter, phi or select has type `token`
//!   (LLVM's IR verifier; the document: tokens "cannot be used in phi or
//!   select instructions").
//! - **The bundle**: at most one `"convergencectrl"` bundle per call, with
//!   exactly one operand of type `token`, produced by a call to one of the
//!   convergence control intrinsics (`entry`, `anchor`, `loop`); `token none`
//!   or a parameter is refused. A call to a function that is not convergent
//!   may take one too, without effect: LLVM 22 allows it (LLVM 19's verifier
//!   refused it; LLVM relaxed the rule so that passes may drop `convergent`
//!   from a callee), and such a call counts as controlled for the next rule.
//! - **`entry`**: only in a convergent function, only in the entry block, before
//!   every other convergent operation of that block, without a bundle (so at
//!   most once per function).
//! - **`anchor`**: without a bundle. **`loop`**: with a bundle, before every
//!   other convergent operation of its block.
//! - **No mix**: a function with a controlled convergent operation has no
//!   uncontrolled one (each uncontrolled one is reported).
//! - **Well-nested regions** ("Convergence Regions"): checked as LLVM's
//!   verifier does, with the stack of live tokens along a reverse postorder
//!   ([`FunctionChecker::check_token_nesting`]).
//! - **Closed paths** (static rules 1-4), checked on the closed paths
//!   themselves rather than on a cycle hierarchy: a block lies on a closed
//!   path that avoids the block `D` defining a token exactly when it is in a
//!   cyclic strongly connected component of the CFG without `D`
//!   ([`crate::cfg::components_without`]), and every block of that component
//!   lies on such a closed path with it. So for a use `U` of a token defined in
//!   another block `D`, in a block of a cyclic component `C` of the CFG
//!   without `D`: rule 1 asks that `U` is a `loop` intrinsic (the *heart* of
//!   the cycle); rule 4 that `U`'s block dominates every block of `C` (so a
//!   heart sits only in the header of a natural loop); rule 2 that no other use
//!   of the token lies in `C`. Rule 3 (two tokens used on a closed path that
//!   contains neither definition) then follows: the two uses are hearts whose
//!   blocks each lie in the other's component, so each dominates the other, and
//!   they share one block, where the second heart is preceded by the first, a
//!   convergent operation (the `loop` rule above reports it).
//!
//! The cost: one component computation per block that defines a token used in
//! another block, O(V + E) each; a nest of d loops with one heart each costs
//! O(d · (V + E)).

use super::{FunctionChecker, VerifyError};
use crate::cfg::{BlockDomTree, Cfg, Components, components_without};
use crate::convergence_control::{ConvergenceControl as Control, control_bundles};
use crate::ir::{Block, Inst, InstKind, Value, ValueDef};
use crate::types::TypeData;
use std::collections::{HashMap, HashSet};

impl FunctionChecker<'_> {
    /// The convergence control intrinsic `inst` calls, if any.
    fn control_of(&self, inst: Inst) -> Option<Control> {
        Control::of_call(self.module, self.body, inst)
    }

    /// Whether `inst` is a convergent operation (a call to a convergent function).
    fn is_convergent(&self, inst: Inst) -> bool {
        matches!(&self.body.insts[inst].kind,
            InstKind::Call { callee, .. } if crate::theta::is_convergent_call(self.module, *callee))
    }

    /// The token `inst` names in its `"convergencectrl"` bundle: `Ok(None)`
    /// without one, `Err(())` when the bundle breaks a rule (reported here).
    /// A token is the result of a call to a convergence control intrinsic.
    fn token_used(&mut self, inst: Inst) -> Result<Option<Inst>, ()> {
        let span = self.spans.insts[inst];
        let mut ctrl = control_bundles(self.body, inst);
        let Some(args) = ctrl.next() else {
            return Ok(None);
        };
        if ctrl.next().is_some() {
            self.error(span, VerifyError::TokenBundleTwice);
            return Err(());
        }
        let [token] = args[..] else {
            self.error(span, VerifyError::TokenBundleShape);
            return Err(());
        };
        if self.module.types.get(self.body.values[token].ty) != &TypeData::Token {
            self.error(span, VerifyError::TokenBundleShape);
            return Err(());
        }
        match self.body.values[token].def {
            ValueDef::Inst(def) if self.control_of(def).is_some() => Ok(Some(def)),
            _ => {
                let value = self.value_text(token);
                self.error(span, VerifyError::TokenNotFromControl { value });
                Err(())
            }
        }
    }

    /// Every rule of the module documentation, for the whole function body.
    pub(super) fn check_tokens(&mut self, cfg: &Cfg, dom: &BlockDomTree) {
        // Per instruction that names a well-formed token: the token's definition.
        let mut uses: Vec<(Inst, Inst)> = Vec::new();
        let mut controlled = false;
        let mut uncontrolled: Vec<Inst> = Vec::new();
        let entry = cfg.entry();
        for param in &self.func.params {
            if self.module.types.get(param.ty) == &TypeData::Token {
                let func = self.func.name.clone();
                self.error(self.spans.header, VerifyError::TokenParameter { func });
            }
        }
        for &block in &self.body.layout {
            let data = &self.body.blocks[block];
            let mut seen_convergent = false;
            for inst in data
                .phis
                .iter()
                .chain(&data.body)
                .copied()
                .collect::<Vec<_>>()
            {
                self.check_token_value(inst);
                let used = self.token_used(inst);
                let control = self.control_of(inst);
                let span = self.spans.insts[inst];
                match control {
                    Some(Control::Entry) => {
                        if !self.func.convergent {
                            let func = self.func.name.clone();
                            self.error(span, VerifyError::EntryOutsideConvergent { func });
                        }
                        if block != entry {
                            self.error(span, VerifyError::EntryNotInEntryBlock);
                        }
                    }
                    Some(Control::Anchor) | Some(Control::Loop) | None => {}
                }
                match control {
                    Some(c @ (Control::Entry | Control::Loop)) if seen_convergent => {
                        let intrinsic = c.name();
                        self.error(span, VerifyError::ControlNotFirst { intrinsic });
                    }
                    _ => {}
                }
                match (control, &used) {
                    (Some(c @ (Control::Entry | Control::Anchor)), Ok(Some(_)) | Err(())) => {
                        let intrinsic = c.name();
                        self.error(span, VerifyError::ControlWithBundle { intrinsic });
                    }
                    (Some(Control::Loop), Ok(None)) => {
                        self.error(span, VerifyError::LoopWithoutBundle);
                    }
                    _ => {}
                }
                let convergent = self.is_convergent(inst);
                seen_convergent |= convergent;
                let names_token = !matches!(used, Ok(None));
                if names_token || control.is_some() {
                    controlled = true;
                } else if convergent {
                    uncontrolled.push(inst);
                }
                if let Ok(Some(def)) = used {
                    uses.push((inst, def));
                }
            }
        }
        if controlled {
            for inst in uncontrolled {
                let callee = self.callee_name(inst);
                self.error(
                    self.spans.insts[inst],
                    VerifyError::MixedConvergence { callee },
                );
            }
        }
        if uses.is_empty() {
            return;
        }
        let positions = self.positions();
        let block_of = |inst: Inst| positions[inst].map(|(b, _)| b);
        self.check_token_nesting(cfg, dom, &uses, &block_of);
        self.check_token_cycles(cfg, dom, &uses, &block_of);
    }

    /// `@name` of the function a call instruction calls.
    fn callee_name(&self, inst: Inst) -> String {
        match &self.body.insts[inst].kind {
            InstKind::Call { callee, .. } => self
                .module
                .functions
                .get(*callee)
                .map_or_else(|| format!("{callee:?}"), |f| f.name.clone()),
            _ => String::new(),
        }
    }

    /// Tokens are not values to choose between: a phi or a select of type
    /// `token` is refused (the document, "Dynamic Instances and Convergence
    /// Tokens"; LLVM's IR verifier).
    fn check_token_value(&mut self, inst: Inst) {
        let data = &self.body.insts[inst];
        let (ty, opcode) = match &data.kind {
            InstKind::Phi { ty, .. } => (*ty, "phi"),
            InstKind::Select { ty, .. } => (*ty, "select"),
            _ => return,
        };
        if self.module.types.get(ty) == &TypeData::Token {
            self.error(self.spans.insts[inst], VerifyError::TokenChosen { opcode });
        }
    }

    /// "Convergence Regions": the region of a token (the points its definition
    /// dominates from which a use is reachable) that holds a use of another
    /// token holds that token's definition. Checked as LLVM's verifier does:
    /// walking the reachable blocks in reverse postorder with the stack of
    /// live tokens (bottom: outermost), a use must find its token on the stack
    /// and closes every token above it; a control intrinsic pushes its own. A
    /// block starts with its first visited predecessor's stack, cut at the
    /// first token whose block does not dominate it, intersected with every
    /// other predecessor's stack as those are visited.
    fn check_token_nesting(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        uses: &[(Inst, Inst)],
        block_of: &dyn Fn(Inst) -> Option<Block>,
    ) {
        let used: HashMap<Inst, Inst> = uses.iter().copied().collect();
        let mut live_in: HashMap<Block, Vec<Inst>> = HashMap::new();
        for block in cfg.reverse_postorder() {
            let mut live = live_in.remove(&block).unwrap_or_default();
            let data = &self.body.blocks[block];
            for &inst in data.phis.iter().chain(&data.body) {
                if let Some(&token) = used.get(&inst) {
                    match live.iter().rposition(|&t| t == token) {
                        Some(at) => live.truncate(at + 1),
                        None => {
                            let token = self.result_text(token);
                            self.errors.push((
                                self.spans.insts[inst],
                                VerifyError::RegionNotNested { token },
                            ));
                        }
                    }
                }
                if self.control_of(inst).is_some() {
                    live.push(inst);
                }
            }
            for &succ in cfg.succs(block) {
                match live_in.get_mut(&succ) {
                    None => {
                        let kept = live
                            .iter()
                            .take_while(|&&t| block_of(t).is_some_and(|b| dom.dominates(b, succ)))
                            .copied()
                            .collect();
                        live_in.insert(succ, kept);
                    }
                    Some(seen) => seen.retain(|t| live.contains(t)),
                }
            }
        }
    }

    /// Static rules 1, 2 and 4 about closed paths (the module documentation
    /// says why rule 3 follows).
    fn check_token_cycles(
        &mut self,
        cfg: &Cfg,
        dom: &BlockDomTree,
        uses: &[(Inst, Inst)],
        block_of: &dyn Fn(Inst) -> Option<Block>,
    ) {
        // The uses by the block defining their token: one component
        // computation per such block, kept only while its uses are read (a
        // table per block would hold O(V) per token-defining block).
        let mut by_def: Vec<(Block, Block, Inst, Inst)> = uses
            .iter()
            .filter_map(|&(user, token)| {
                let (at, def) = (block_of(user)?, block_of(token)?);
                (at != def && cfg.reachable(at)).then_some((def, at, user, token))
            })
            .collect();
        by_def.sort_by_key(|&(def, at, user, _)| (def, at, user));
        let mut current: Option<(Block, Components)> = None;
        let mut hearts: HashSet<(Inst, u32)> = HashSet::new();
        for (def, at, user, token) in by_def {
            if current.as_ref().is_none_or(|(d, _)| *d != def) {
                current = Some((def, components_without(cfg.graph(), def.as_u32())));
            }
            let Some((_, comps)) = current.as_ref() else {
                continue;
            };
            let Some(cycle) = comps.cyclic_of(at.as_u32()) else {
                continue;
            };
            let span = self.spans.insts[user];
            let token_text = self.result_text(token);
            if self.control_of(user) != Some(Control::Loop) {
                self.errors.push((
                    span,
                    VerifyError::TokenUsedAcrossCycle { token: token_text },
                ));
                continue;
            }
            if let Some(outside) = comps
                .nodes(cycle)
                .map(Block::from_u32)
                .find(|&b| !dom.dominates(at, b))
            {
                let block = self.block_text(outside);
                self.errors.push((
                    span,
                    VerifyError::HeartNotDominating {
                        token: token_text,
                        block,
                    },
                ));
                continue;
            }
            if !hearts.insert((token, cycle)) {
                self.errors
                    .push((span, VerifyError::TwoHearts { token: token_text }));
            }
        }
    }

    /// `%name` of the value an instruction defines.
    fn result_text(&self, inst: Inst) -> String {
        self.body.insts[inst]
            .result
            .map_or_else(|| "an unnamed token".into(), |v: Value| self.value_text(v))
    }
}
