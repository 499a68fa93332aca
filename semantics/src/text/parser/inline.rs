//! Inlining at load time (docs/language.md, "Calls and declarations"): every call to a function *defined* in the
//! module is replaced by a copy of the callee's body, before the module is put in
//! normal form.
//!
//! The thesis's machine runs one function (Def. 1, Def. 3): θ holds mathematical
//! functions and "P-LLVM ... does not support calls to other P-LLVM functions and
//! in particular recursion" (§4.9.2). clang at `-O0` leaves calls to the helpers of
//! a kernel in the module, so the parser inlines them and the program the rules see
//! is again one function body, run in lock step. Recursion (direct or mutual) is
//! refused with the cycle and the position of the call that closes it.
//!
//! Inlining a call `%r = call T @g(args)` in block `B` (the callee already has its
//! own calls inlined: functions are processed callees first):
//! - `B` ends at the call, with `br label %g.<entry>`;
//! - the callee's blocks are copied after `B`, named `g.<name>` (made unique), its
//!   values renamed the same way, its parameters replaced by `args`;
//! - every `ret v` becomes `br label %g.return`, a new block that holds the rest of
//!   `B` (the commands after the call, and its terminator; the phis of `B`'s
//!   successors now name it as the predecessor);
//! - `%r` becomes `%r = phi T [v, ...]` at the start of `g.return`, one incoming
//!   value per `ret` (a callee without `ret` leaves `g.return` unreachable, and
//!   `%r` a `freeze` of `undef` there).
//!
//! Copies keep the callee's source positions, so an error in inlined code points at
//! the callee's text. A call in a block with a predicate, a `total` call, or a call
//! to a variadic definition is refused ("unsupported construct"); a call whose
//! arguments or result do not match the definition is left for the verifier to
//! report. The callee's definition stays in the module.

use super::cursor::{OperandUse, Parser, empty_block};
use super::normal::{map_kind, map_term, normalize_body};
use crate::diag::{FunctionSpans, Span};
use crate::entity::EntityRef;
use crate::ir::{
    Block, Body, ConstData, FuncId, Inst, InstData, InstKind, Terminator, Value, ValueData,
    ValueDef,
};
use crate::text::error::ParseError;
use std::collections::{HashMap, HashSet};

/// The most instructions a function may have after inlining: a bound on the
/// growth of nested helpers called many times (each level multiplies).
const MAX_INLINED_INSTS: usize = 1 << 22;

/// One call of a defined function: the caller's instruction and the callee.
type CallSite = (Inst, FuncId);

impl Parser<'_> {
    /// Inlines every call to a defined function (see the module documentation);
    /// errors go to `self.errors`.
    pub(super) fn inline_defined_calls(&mut self) {
        let sites = self.defined_call_sites();
        if sites.values().all(Vec::is_empty) {
            return;
        }
        let Some(order) = self.callees_first(&sites) else {
            return;
        };
        for f in order {
            let Some(calls) = sites.get(&f).filter(|c| !c.is_empty()) else {
                continue;
            };
            let errors = self.inline_into(f, calls);
            self.errors.extend(errors);
        }
    }

    /// The calls to defined functions in each defined function, in layout order.
    fn defined_call_sites(&self) -> HashMap<FuncId, Vec<CallSite>> {
        let mut sites = HashMap::new();
        for (f, data) in self.module.functions.iter() {
            let Some(body) = &data.body else { continue };
            let mut calls = Vec::new();
            for &b in &body.layout {
                for &i in &body.blocks[b].body {
                    if let InstKind::Call { callee, .. } = body.insts[i].kind
                        && self.module.functions[callee].body.is_some()
                    {
                        calls.push((i, callee));
                    }
                }
            }
            sites.insert(f, calls);
        }
        sites
    }

    /// The defined functions, every callee before its callers (a depth-first
    /// post-order of the call graph), or `None` after reporting each cycle.
    fn callees_first(&mut self, sites: &HashMap<FuncId, Vec<CallSite>>) -> Option<Vec<FuncId>> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut mark: HashMap<FuncId, Mark> = sites.keys().map(|&f| (f, Mark::New)).collect();
        let mut roots: Vec<FuncId> = sites.keys().copied().collect();
        roots.sort();
        let mut order = Vec::new();
        let mut recursive = false;
        for root in roots {
            if mark[&root] != Mark::New {
                continue;
            }
            // The path of open functions, each with the index of its next call.
            let mut path: Vec<(FuncId, usize)> = vec![(root, 0)];
            mark.insert(root, Mark::Open);
            while let Some(&mut (f, ref mut next)) = path.last_mut() {
                let Some(&(inst, callee)) = sites[&f].get(*next) else {
                    mark.insert(f, Mark::Done);
                    order.push(f);
                    path.pop();
                    continue;
                };
                *next += 1;
                match mark.get(&callee).copied().unwrap_or(Mark::Done) {
                    Mark::New => {
                        mark.insert(callee, Mark::Open);
                        path.push((callee, 0));
                    }
                    Mark::Open => {
                        recursive = true;
                        let start = path.iter().position(|&(g, _)| g == callee).unwrap_or(0);
                        let names: Vec<String> = path[start..]
                            .iter()
                            .map(|&(g, _)| g)
                            .chain([callee])
                            .map(|g| format!("@{}", self.module.functions[g].name))
                            .collect();
                        let span = *self.source_map.function(f).insts.get(inst);
                        self.errors.push(ParseError::new(
                            span,
                            format!(
                                "unsupported construct: recursive call ({}); calls to defined functions are inlined, and a recursive one cannot be",
                                names.join(" → ")
                            ),
                        ));
                    }
                    Mark::Done => {}
                }
            }
        }
        (!recursive).then_some(order)
    }

    /// Inlines the calls `calls` of `f` (their callees have no calls left to
    /// inline) and puts the body back in normal form; returns the calls refused.
    fn inline_into(&mut self, f: FuncId, calls: &[CallSite]) -> Vec<ParseError> {
        let mut errors = Vec::new();
        let data = &self.module.functions[f];
        let Some(body) = &data.body else {
            return errors;
        };
        let params: Vec<Value> = data.params.iter().map(|p| p.value).collect();
        let spans = self.source_map.function(f);
        let mut target = Target {
            body: body.clone(),
            uses: spans
                .operand_uses
                .iter()
                .map(|(&(i, k), &s)| (i, k, s))
                .collect(),
            spans: spans.clone(),
            names: HashSet::new(),
            block_names: HashSet::new(),
        };
        target.collect_names();
        for &(call, callee) in calls {
            let callee_data = &self.module.functions[callee];
            let Some(callee_body) = &callee_data.body else {
                continue;
            };
            let call_span = *target.spans.insts.get(call);
            if target.body.insts.len() + callee_body.insts.len() > MAX_INLINED_INSTS {
                errors.push(ParseError::new(
                    call_span,
                    format!(
                        "inlining @{} into @{} makes more than {MAX_INLINED_INSTS} instructions",
                        callee_data.name, data.name
                    ),
                ));
                return errors;
            }
            let Some(block) = target.block_of(call) else {
                continue;
            };
            let name = &callee_data.name;
            let refused = if target.body.blocks[block].predicate.is_some() {
                Some(format!(
                    "call of the defined function @{name} in a block with a predicate"
                ))
            } else if target.body.insts[call].total {
                Some(format!("total call of the defined function @{name}"))
            } else if callee_data.variadic {
                Some(format!(
                    "call of the variadic function @{name} defined in the module"
                ))
            } else {
                None
            };
            if let Some(what) = refused {
                errors.push(ParseError::new(
                    call_span,
                    format!(
                        "unsupported construct: {what} (calls to defined functions are inlined)"
                    ),
                ));
                continue;
            }
            let InstKind::Call { ret_ty, args, .. } = &target.body.insts[call].kind else {
                continue;
            };
            let arg_tys: Vec<_> = args.iter().map(|&a| target.body.values[a].ty).collect();
            let param_tys: Vec<_> = callee_data.params.iter().map(|p| p.ty).collect();
            if *ret_ty != callee_data.ret_ty || arg_tys != param_tys {
                // Left for the verifier, which names the mismatch.
                continue;
            }
            let callee_spans = self.source_map.function(callee);
            target.inline_call(
                block,
                call,
                &callee_data.name,
                callee_body,
                callee_spans,
                call_span,
            );
        }
        let (body, spans) = normalize_body(
            &target.body,
            &params,
            &HashMap::new(),
            Some((&target.spans, &target.uses)),
        );
        self.module.functions[f].body = Some(body);
        self.source_map.functions.insert(f, spans);
        errors
    }
}

/// The caller's body under construction, with its spans and names.
struct Target {
    body: Body,
    spans: FunctionSpans,
    uses: Vec<OperandUse>,
    names: HashSet<String>,
    block_names: HashSet<String>,
}

impl Target {
    fn collect_names(&mut self) {
        self.names = self
            .body
            .values
            .values()
            .filter_map(|v| v.name.clone())
            .collect();
        self.block_names = self.body.blocks.values().map(|b| b.name.clone()).collect();
    }

    /// The block whose commands hold `inst`.
    fn block_of(&self, inst: Inst) -> Option<Block> {
        self.body
            .layout
            .iter()
            .copied()
            .find(|&b| self.body.blocks[b].body.contains(&inst))
    }

    /// `callee.name`, or with a `.N` suffix when that is taken.
    fn fresh(taken: &mut HashSet<String>, callee: &str, name: &str) -> String {
        let base = format!("{callee}.{name}");
        let mut candidate = base.clone();
        let mut n = 1;
        while taken.contains(&candidate) {
            candidate = format!("{base}.{n}");
            n += 1;
        }
        taken.insert(candidate.clone());
        candidate
    }

    /// Inlines one call (see the module documentation).
    fn inline_call(
        &mut self,
        block: Block,
        call: Inst,
        callee_name: &str,
        callee: &Body,
        callee_spans: &FunctionSpans,
        call_span: Span,
    ) {
        let InstKind::Call { ret_ty, args, .. } = self.body.insts[call].kind.clone() else {
            return;
        };
        // Values: parameters become the arguments, constants are copied, results
        // get fresh names (their definitions are set once the copies exist).
        let mut value_map: Vec<Value> = Vec::with_capacity(callee.values.len());
        for (v, data) in callee.values.iter() {
            let new = match &data.def {
                ValueDef::Param(k) => args[*k as usize],
                ValueDef::Const(_) => self.body.values.push(data.clone()),
                ValueDef::Inst(_) => {
                    let name = data
                        .name
                        .as_deref()
                        .map(|n| Self::fresh(&mut self.names, callee_name, n));
                    let new = self.body.values.push(ValueData {
                        ty: data.ty,
                        name,
                        def: ValueDef::Const(ConstData::Undef),
                    });
                    let span = *callee_spans.values.get(v);
                    if span != Span::default() {
                        self.spans.values[new] = span;
                    }
                    new
                }
            };
            value_map.push(new);
        }
        let mut block_map: HashMap<Block, Block> = HashMap::new();
        for &b in &callee.layout {
            let name = Self::fresh(&mut self.block_names, callee_name, &callee.blocks[b].name);
            let new = self.body.blocks.push(empty_block(name));
            self.spans.blocks[new] = *callee_spans.blocks.get(b);
            self.spans.predicates[new] = *callee_spans.predicates.get(b);
            self.spans.terms[new] = *callee_spans.terms.get(b);
            block_map.insert(b, new);
        }
        let after_name = Self::fresh(&mut self.block_names, callee_name, "return");
        let after = self.body.blocks.push(empty_block(after_name));
        self.spans.blocks[after] = call_span;
        self.spans.terms[after] = *self.spans.terms.get(block);
        let map_block = |b: Block| block_map.get(&b).copied().unwrap_or(after);
        let mut map_value = |v: Value| value_map.get(v.index()).copied().unwrap_or(v);
        // Instructions, with their spans and operand uses.
        let mut inst_map: HashMap<Inst, Inst> = HashMap::new();
        for (i, data) in callee.insts.iter() {
            let kind = map_kind(&data.kind, &mut map_value, &map_block);
            let result = data.result.map(&mut map_value);
            let new = self.body.insts.push(InstData {
                kind,
                result,
                total: data.total,
            });
            if let Some(r) = result {
                self.body.values[r].def = ValueDef::Inst(new);
            }
            self.spans.insts[new] = *callee_spans.insts.get(i);
            inst_map.insert(i, new);
        }
        for (&(i, k), &span) in callee_spans.operand_uses.iter() {
            if let Some(&new) = inst_map.get(&i) {
                self.uses.push((new, k, span));
            }
        }
        // Blocks: `ret` becomes a branch to `after`, recording what it returns.
        let mut returns: Vec<(Value, Block)> = Vec::new();
        let mut copies = Vec::with_capacity(callee.layout.len());
        for &b in &callee.layout {
            let data = &callee.blocks[b];
            let new = block_map[&b];
            let term = match &data.term {
                Terminator::Ret(r) => {
                    if let Some(v) = r {
                        returns.push((map_value(*v), new));
                    }
                    Terminator::Br(after)
                }
                other => map_term(other, &mut map_value, &map_block),
            };
            let target = &mut self.body.blocks[new];
            target.predicate = data.predicate.map(&mut map_value);
            target.phis = data.phis.iter().map(|i| inst_map[i]).collect();
            target.body = data.body.iter().map(|i| inst_map[i]).collect();
            target.term = term;
            copies.push(new);
        }
        // Split `block` at the call: the rest moves to `after`.
        let entry = copies[0];
        let caller = &mut self.body.blocks[block];
        let at = caller.body.iter().position(|&i| i == call).unwrap_or(0);
        let rest: Vec<Inst> = caller.body.split_off(at + 1);
        caller.body.pop();
        let term = std::mem::replace(&mut caller.term, Terminator::Br(entry));
        self.spans.terms[block] = call_span;
        for succ in term.successors() {
            for &phi in &self.body.blocks[succ].phis.clone() {
                if let InstKind::Phi { incoming, .. } = &mut self.body.insts[phi].kind {
                    for (_, from) in incoming.iter_mut().filter(|(_, from)| *from == block) {
                        *from = after;
                    }
                }
            }
        }
        let mut after_phis = Vec::new();
        let mut after_body = Vec::new();
        if self.body.insts[call].result.is_some() {
            self.body.insts[call].kind = if returns.is_empty() {
                let undef = self.body.add_const(ret_ty, ConstData::Undef);
                after_body.push(call);
                InstKind::Freeze {
                    ty: ret_ty,
                    arg: undef,
                }
            } else {
                after_phis.push(call);
                InstKind::Phi {
                    ty: ret_ty,
                    incoming: returns,
                    shadow: None,
                }
            };
        }
        self.uses.retain(|&(i, _, _)| i != call);
        after_body.extend(rest);
        let after_data = &mut self.body.blocks[after];
        after_data.phis = after_phis;
        after_data.body = after_body;
        after_data.term = term;
        let pos = self
            .body
            .layout
            .iter()
            .position(|&b| b == block)
            .unwrap_or(0);
        let mut new_blocks = copies;
        new_blocks.push(after);
        self.body.layout.splice(pos + 1..pos + 1, new_blocks);
    }
}
