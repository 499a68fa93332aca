//! Points-to facts for stack objects: `aliased_allocas` of thesis §6.5.2, found by
//! propagating alloca provenance to a fixpoint, and which objects escape.

use crate::calls::{CallKind, call_kind};
use pllvm_semantics::ir::{Body, CastOp, Inst, InstKind, Module, Terminator, Value, ValueDef};
use std::collections::{BTreeMap, BTreeSet};

/// May-alias facts for stack objects: `aliased_allocas` of §6.5.2.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointsTo {
    /// Per value: the allocas it may point into.
    sets: BTreeMap<Value, BTreeSet<Inst>>,
    /// Per value: whether it may point anywhere (loaded, argument, `inttoptr`, call).
    unknown: BTreeSet<Value>,
    /// Allocas whose address escapes.
    pub escaped: BTreeSet<Inst>,
    /// Every alloca.
    pub allocas: Vec<Inst>,
}

impl PointsTo {
    /// Propagates alloca provenance through `getelementptr`, phis, `select`, casts
    /// and `freeze` to a fixpoint; anything else that yields a pointer (loads,
    /// calls, `extractelement`, `extractvalue`, atomics) may point to any escaped
    /// object. A pointer stored by an atomic or put into a vector or aggregate
    /// escapes.
    pub(crate) fn compute(module: &Module, body: &Body) -> PointsTo {
        let mut pt = PointsTo::default();
        let insts = all_insts(body);
        for &i in &insts {
            if matches!(body.insts[i].kind, InstKind::Alloca { .. }) {
                pt.allocas.push(i);
            }
        }
        let is_ptr = |v: Value| module.types.is_ptr(body.values[v].ty);
        for (v, data) in body.values.iter() {
            if matches!(data.def, ValueDef::Param(_)) && is_ptr(v) {
                pt.unknown.insert(v);
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &i in &insts {
                let data = &body.insts[i];
                let Some(result) = data.result else { continue };
                let sources: Vec<Value> = match &data.kind {
                    InstKind::Alloca { .. } => {
                        changed |= pt.sets.entry(result).or_default().insert(i);
                        continue;
                    }
                    InstKind::Gep { base, .. } => vec![*base],
                    InstKind::Phi { .. } | InstKind::Select { .. } => {
                        let ops = data.kind.operands();
                        match &data.kind {
                            InstKind::Select { .. } => ops[1..].to_vec(),
                            _ => ops,
                        }
                    }
                    InstKind::Freeze { arg, .. } => vec![*arg],
                    InstKind::Cast {
                        op: CastOp::Bitcast | CastOp::AddrSpaceCast,
                        arg,
                        ..
                    } => vec![*arg],
                    InstKind::Cast {
                        op: CastOp::IntToPtr,
                        ..
                    }
                    | InstKind::Load { .. }
                    | InstKind::Call { .. }
                    | InstKind::ExtractElement { .. }
                    | InstKind::ExtractValue { .. }
                    | InstKind::AtomicRmw { .. }
                    | InstKind::CmpXchg { .. } => {
                        if is_ptr(result) {
                            changed |= pt.unknown.insert(result);
                        }
                        continue;
                    }
                    _ => continue,
                };
                for s in sources {
                    let add: Vec<Inst> = pt.sets.get(&s).into_iter().flatten().copied().collect();
                    let entry = pt.sets.entry(result).or_default();
                    for a in add {
                        changed |= entry.insert(a);
                    }
                    if pt.unknown.contains(&s) {
                        changed |= pt.unknown.insert(result);
                    }
                }
            }
        }
        // Escapes: a stack address stored as data, passed to a call other than as
        // the written pointer of a memory intrinsic, turned into an integer, or
        // returned.
        let mut escaping: Vec<Value> = Vec::new();
        for &i in &insts {
            match &body.insts[i].kind {
                InstKind::Store { value, .. }
                | InstKind::AtomicRmw { value, .. }
                | InstKind::CmpXchg { new: value, .. } => escaping.push(*value),
                // A pointer put into a vector or aggregate is tracked no further.
                InstKind::InsertElement { elem, .. } | InstKind::InsertValue { elem, .. } => {
                    escaping.push(*elem)
                }
                InstKind::Cast {
                    op: CastOp::PtrToInt,
                    arg,
                    ..
                } => escaping.push(*arg),
                InstKind::Call { callee, args, .. } => {
                    let kind = call_kind(module, *callee, args.len());
                    for (k, a) in args.iter().enumerate() {
                        let written = matches!(&kind, CallKind::Write { dst, .. } if *dst == k);
                        let copied_from = matches!(&kind, CallKind::Write { dst, data } if *dst == 0 && k == 1 && !data.is_empty());
                        if !(written || copied_from) {
                            escaping.push(*a);
                        }
                    }
                }
                _ => {}
            }
        }
        for &b in &body.layout {
            if let Terminator::Ret(Some(v)) = body.blocks[b].term {
                escaping.push(v);
            }
        }
        for v in escaping {
            if let Some(set) = pt.sets.get(&v) {
                pt.escaped.extend(set.iter().copied());
            }
        }
        pt
    }

    /// `aliased_allocas(val_ptr)` (§6.5.2): the allocas `ptr` may point into.
    pub(crate) fn aliased_allocas(&self, ptr: Value) -> BTreeSet<Inst> {
        let mut out: BTreeSet<Inst> = self.sets.get(&ptr).cloned().unwrap_or_default();
        if self.unknown.contains(&ptr) {
            out.extend(self.escaped.iter().copied());
        }
        out
    }

    /// Whether `ptr` may hold the address of a stack object.
    pub(crate) fn may_be_stack(&self, ptr: Value) -> bool {
        !self.aliased_allocas(ptr).is_empty()
    }
}

/// Every phi and command of `body`, in layout order.
pub(crate) fn all_insts(body: &Body) -> Vec<Inst> {
    body.layout
        .iter()
        .flat_map(|&b| {
            let data = &body.blocks[b];
            data.phis.iter().chain(&data.body).copied()
        })
        .collect()
}
