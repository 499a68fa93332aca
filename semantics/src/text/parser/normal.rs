//! The normal form of modules (see [`normal_form`]): the representative that
//! `parse(print(m))` returns.

use super::cursor::{OperandUse, is_invented_name, wrap_to_width};
use super::inst::{binary_flags, cast_flags};
use crate::diag::{FunctionSpans, OperandUses, SourceMap, Span};
use crate::entity::{EntityRef, PrimaryMap};
use crate::ir::{
    Block, BlockData, Body, ConstData, ConstExpr, FuncId, FunctionData, GepIndex, GlobalInit, Inst,
    InstData, InstKind, Module, OperandBundle, Terminator, Value, ValueData, ValueDef,
};
use crate::types::{Ty, TypeData, TypeTable};
use std::collections::HashMap;

/// The normal form of a module: the representative that `parse(print(m))` returns.
///
/// In normal form
/// - blocks are numbered in layout order, phis and commands in layout order;
/// - values are numbered: parameters, then results in instruction order, then one
///   fresh constant per use, in the order of the uses (block predicate, phis and
///   commands in [`InstKind::operands`] order, terminator);
/// - every `Param::value` is `Value(i)` (also for declarations);
/// - types are interned in a fixed walk (globals, signatures, values, instructions);
/// - names the printer invents for unnamed entities (`%_7`, `_b3`) are absent
///   (`None` / empty), integer constants are reduced to their width, flags the text
///   cannot express are cleared, and `addrspace(N)` lives in `GlobalData::addrspace`.
///
/// For any module `m` with valid handles, `parse(print(m)) == normal_form(m)`, and
/// `normal_form` is the identity on what the parser returns.
pub fn normal_form(m: &Module) -> Module {
    let mut out = m.clone();
    for g in out.globals.keys().collect::<Vec<_>>() {
        let g = &mut out.globals[g];
        let mut kept = Vec::new();
        for word in std::mem::take(&mut g.linkage) {
            let space = word
                .strip_prefix("addrspace(")
                .and_then(|s| s.strip_suffix(')'))
                .and_then(|s| s.trim().parse::<u32>().ok());
            match space {
                Some(n) => g.addrspace = n,
                None => kept.push(word),
            }
        }
        g.linkage = kept;
        if let Some(init) = g.init.take() {
            g.init = Some(normalize_init(init));
        }
    }
    for f in out.functions.keys().collect::<Vec<_>>() {
        let func = &mut out.functions[f];
        let params: Vec<Value> = func.params.iter().map(|p| p.value).collect();
        if let Some(body) = &func.body {
            let (body, _) = normalize_body(body, &params, &HashMap::new(), None);
            func.body = Some(body);
        }
        for (i, p) in func.params.iter_mut().enumerate() {
            p.value = Value::from_u32(i as u32);
        }
    }
    for f in out.functions.keys().collect::<Vec<_>>() {
        let Some(mut body) = out.functions[f].body.take() else {
            continue;
        };
        for v in body.values.keys().collect::<Vec<_>>() {
            let ty = body.values[v].ty;
            let data = &mut body.values[v];
            if let ValueDef::Const(c) = &mut data.def {
                data.name = None;
                match c {
                    ConstData::Int(x) => {
                        if let Some(w) = out.types.int_width(ty) {
                            *x = wrap_to_width(x, w);
                        }
                    }
                    ConstData::Float(bits) if out.types.get(ty) == &TypeData::F32 => {
                        *bits &= 0xFFFF_FFFF;
                    }
                    _ => {}
                }
            } else if data
                .name
                .as_deref()
                .is_some_and(|n| is_invented_name(n, "_"))
            {
                data.name = None;
            }
        }
        for b in body.blocks.keys().collect::<Vec<_>>() {
            let block = &mut body.blocks[b];
            if is_invented_name(&block.name, "_b") {
                block.name.clear();
            }
            if let Terminator::Switch { ty, cases, .. } = &mut block.term {
                let width = out.types.int_width(*ty);
                for (x, _) in cases.iter_mut() {
                    if let Some(w) = width {
                        *x = wrap_to_width(x, w);
                    }
                }
            }
        }
        for i in body.insts.keys().collect::<Vec<_>>() {
            match &mut body.insts[i].kind {
                InstKind::Binary { op, flags, .. } => *flags = binary_flags(*op, *flags),
                InstKind::Cast { op, flags, .. } => *flags = cast_flags(*op, *flags),
                _ => {}
            }
        }
        out.functions[f].body = Some(body);
    }
    inline_asm_last(&mut out, None);
    normalize_types(&mut out);
    out
}

pub(super) fn normalize_init(init: GlobalInit) -> GlobalInit {
    match init {
        GlobalInit::Scalar(ConstData::Zero) => GlobalInit::Zero,
        GlobalInit::Scalar(ConstData::Undef | ConstData::Poison) => GlobalInit::Undef,
        GlobalInit::Aggregate(elems) => {
            GlobalInit::Aggregate(elems.into_iter().map(normalize_init).collect())
        }
        other => other,
    }
}

/// Renumbers blocks, instructions and values of `body` in normal form (see
/// [`normal_form`]), resolving `aliases` (placeholders of lifted shadow phis), and
/// carries the spans (and the operand uses, recorded as a list) along.
///
/// Longer than ~150 lines on purpose: its passes
/// (blocks, instructions, values, the new body, the spans) share the old-to-new
/// tables built at the top; read top to bottom they are the normal form's
/// definition.
pub(super) fn normalize_body(
    body: &Body,
    params: &[Value],
    aliases: &HashMap<Value, Value>,
    spans: Option<(&FunctionSpans, &[OperandUse])>,
) -> (Body, FunctionSpans) {
    // Dense old → new tables, indexed by the old handle.
    let mut block_map: Vec<Option<Block>> = vec![None; body.blocks.len()];
    let mut layout = Vec::new();
    for &b in &body.layout {
        if let Some(slot @ None) = block_map.get_mut(b.index()) {
            *slot = Some(Block::new(layout.len()));
            layout.push(b);
        }
    }
    let map_block = |b: Block| block_map.get(b.index()).copied().flatten().unwrap_or(b);
    let mut inst_map: Vec<Option<Inst>> = vec![None; body.insts.len()];
    let mut inst_order = Vec::new();
    for &b in &layout {
        let data = &body.blocks[b];
        for &i in data.phis.iter().chain(&data.body) {
            if let Some(slot @ None) = inst_map.get_mut(i.index()) {
                *slot = Some(Inst::new(inst_order.len()));
                inst_order.push(i);
            }
        }
    }
    let resolve = |v: Value| {
        if aliases.is_empty() {
            v
        } else {
            aliases.get(&v).copied().unwrap_or(v)
        }
    };
    let mut values: PrimaryMap<Value, ValueData> = PrimaryMap::with_capacity(body.values.len());
    let mut value_map: Vec<Option<Value>> = vec![None; body.values.len()];
    for (k, &p) in params.iter().enumerate() {
        let p = resolve(p);
        let (Some(data), Some(slot @ None)) = (body.values.get(p), value_map.get_mut(p.index()))
        else {
            continue;
        };
        *slot = Some(values.push(ValueData {
            ty: data.ty,
            name: data.name.clone(),
            def: ValueDef::Param(k as u32),
        }));
    }
    let mut result_of: Vec<Option<Value>> = vec![None; body.insts.len()];
    for (k, &i) in inst_order.iter().enumerate() {
        let Some(r) = body.insts[i].result.map(resolve) else {
            continue;
        };
        let (Some(data), Some(slot)) = (body.values.get(r), value_map.get_mut(r.index())) else {
            continue;
        };
        let new = match *slot {
            Some(existing) => existing,
            None => {
                let new = values.push(ValueData {
                    ty: data.ty,
                    name: data.name.clone(),
                    def: ValueDef::Inst(Inst::new(k)),
                });
                *slot = Some(new);
                new
            }
        };
        result_of[i.index()] = Some(new);
    }
    let mut map_value = |v: Value| -> Value {
        let v = resolve(v);
        if let Some(Some(n)) = value_map.get(v.index()) {
            return *n;
        }
        match body.values.get(v) {
            Some(data) => {
                let new = values.push(data.clone());
                if !matches!(data.def, ValueDef::Const(_)) {
                    value_map[v.index()] = Some(new);
                }
                new
            }
            None => values.push(ValueData {
                ty: TypeTable::VOID,
                name: None,
                def: ValueDef::Const(ConstData::Undef),
            }),
        }
    };
    let mut out = Body {
        blocks: PrimaryMap::with_capacity(layout.len()),
        layout: Vec::with_capacity(layout.len()),
        insts: PrimaryMap::with_capacity(inst_order.len()),
        values: PrimaryMap::new(),
    };
    let mut pushed = vec![false; body.insts.len()];
    for &b in &layout {
        let data = &body.blocks[b];
        let predicate = data.predicate.map(&mut map_value);
        let mut phis = Vec::with_capacity(data.phis.len());
        let mut cmds = Vec::with_capacity(data.body.len());
        for (list, into) in [(&data.phis, &mut phis), (&data.body, &mut cmds)] {
            for &i in list {
                let Some(new) = inst_map[i.index()] else {
                    continue;
                };
                if std::mem::replace(&mut pushed[i.index()], true) {
                    continue;
                }
                let inst = &body.insts[i];
                let kind = map_kind(&inst.kind, &mut map_value, &map_block);
                out.insts.push(InstData {
                    kind,
                    result: result_of[i.index()],
                    total: inst.total,
                });
                into.push(new);
            }
        }
        let term = map_term(&data.term, &mut map_value, &map_block);
        out.blocks.push(BlockData {
            name: data.name.clone(),
            predicate,
            phis,
            body: cmds,
            term,
        });
        out.layout.push(map_block(b));
    }
    out.values = values;
    let mut new_spans = FunctionSpans::default();
    if let Some((s, uses)) = spans {
        new_spans.header = s.header;
        for (old, new) in block_map.iter().enumerate() {
            if let Some(new) = *new {
                let old = Block::new(old);
                new_spans.blocks[new] = *s.blocks.get(old);
                new_spans.predicates[new] = *s.predicates.get(old);
                new_spans.terms[new] = *s.terms.get(old);
            }
        }
        for (old, new) in inst_map.iter().enumerate() {
            if let Some(new) = *new {
                new_spans.insts[new] = *s.insts.get(Inst::new(old));
            }
        }
        for (old, new) in value_map.iter().enumerate() {
            if let Some(new) = *new {
                let span = *s.values.get(Value::new(old));
                if span != Span::default() {
                    new_spans.values[new] = span;
                }
            }
        }
        let mut mapped = Vec::with_capacity(uses.len());
        for &(i, k, span) in uses {
            if let Some(Some(new)) = inst_map.get(i.index()) {
                mapped.push(((*new, k), span));
            }
        }
        new_spans.operand_uses = OperandUses::from_uses(mapped);
    }
    (out, new_spans)
}

/// `kind` with its values and blocks renamed; values are visited in
/// [`InstKind::operands`] order.
///
/// Longer than ~150 lines on purpose: one arm per
/// [`InstKind`] variant; one exhaustive match makes the compiler ask how a new
/// kind's values and blocks are renamed.
pub(super) fn map_kind(
    kind: &InstKind,
    v: &mut impl FnMut(Value) -> Value,
    b: &impl Fn(Block) -> Block,
) -> InstKind {
    match kind {
        InstKind::Phi {
            ty,
            incoming,
            shadow,
        } => {
            let incoming = incoming.iter().map(|&(x, l)| (v(x), b(l))).collect();
            let shadow = shadow.map(&mut *v);
            InstKind::Phi {
                ty: *ty,
                incoming,
                shadow,
            }
        }
        InstKind::Binary {
            op,
            flags,
            ty,
            lhs,
            rhs,
        } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::Binary {
                op: *op,
                flags: *flags,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::FNeg { ty, arg } => InstKind::FNeg {
            ty: *ty,
            arg: v(*arg),
        },
        InstKind::ICmp { pred, ty, lhs, rhs } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::ICmp {
                pred: *pred,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::FCmp { pred, ty, lhs, rhs } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::FCmp {
                pred: *pred,
                ty: *ty,
                lhs,
                rhs,
            }
        }
        InstKind::Cast {
            op,
            flags,
            from,
            arg,
            to,
        } => InstKind::Cast {
            op: *op,
            flags: *flags,
            from: *from,
            arg: v(*arg),
            to: *to,
        },
        InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        } => {
            let cond = v(*cond);
            let if_true = v(*if_true);
            let if_false = v(*if_false);
            InstKind::Select {
                ty: *ty,
                cond,
                if_true,
                if_false,
            }
        }
        InstKind::Freeze { ty, arg } => InstKind::Freeze {
            ty: *ty,
            arg: v(*arg),
        },
        InstKind::Alloca { ty, count, align } => InstKind::Alloca {
            ty: *ty,
            count: count.map(&mut *v),
            align: *align,
        },
        InstKind::Load {
            ty,
            ptr,
            align,
            volatile,
        } => InstKind::Load {
            ty: *ty,
            ptr: v(*ptr),
            align: *align,
            volatile: *volatile,
        },
        InstKind::Store {
            ty,
            value,
            ptr,
            align,
            volatile,
        } => {
            let value = v(*value);
            let ptr = v(*ptr);
            InstKind::Store {
                ty: *ty,
                value,
                ptr,
                align: *align,
                volatile: *volatile,
            }
        }
        InstKind::Gep {
            inbounds,
            source_ty,
            base,
            indices,
        } => {
            let base = v(*base);
            let indices = indices
                .iter()
                .map(|i| GepIndex { value: v(i.value) })
                .collect();
            InstKind::Gep {
                inbounds: *inbounds,
                source_ty: *source_ty,
                base,
                indices,
            }
        }
        InstKind::Call {
            callee,
            ret_ty,
            args,
            bundles,
        } => {
            let args = args.iter().map(|&a| v(a)).collect();
            let bundles = bundles
                .iter()
                .map(|b| OperandBundle {
                    tag: b.tag.clone(),
                    args: b.args.iter().map(|&a| v(a)).collect(),
                })
                .collect();
            InstKind::Call {
                callee: *callee,
                ret_ty: *ret_ty,
                args,
                bundles,
            }
        }
        InstKind::Mask => InstKind::Mask,
        InstKind::ExtractElement { ty, vector, index } => {
            let vector = v(*vector);
            let index = v(*index);
            InstKind::ExtractElement {
                ty: *ty,
                vector,
                index,
            }
        }
        InstKind::InsertElement {
            ty,
            vector,
            elem,
            index,
        } => {
            let vector = v(*vector);
            let elem = v(*elem);
            let index = v(*index);
            InstKind::InsertElement {
                ty: *ty,
                vector,
                elem,
                index,
            }
        }
        InstKind::ShuffleVector { ty, lhs, rhs, mask } => {
            let lhs = v(*lhs);
            let rhs = v(*rhs);
            InstKind::ShuffleVector {
                ty: *ty,
                lhs,
                rhs,
                mask: mask.clone(),
            }
        }
        InstKind::ExtractValue { ty, agg, indices } => InstKind::ExtractValue {
            ty: *ty,
            agg: v(*agg),
            indices: indices.clone(),
        },
        InstKind::InsertValue {
            ty,
            agg,
            elem,
            indices,
        } => {
            let agg = v(*agg);
            let elem = v(*elem);
            InstKind::InsertValue {
                ty: *ty,
                agg,
                elem,
                indices: indices.clone(),
            }
        }
        InstKind::AtomicRmw {
            op,
            ty,
            ptr,
            value,
            atomic,
            volatile,
            align,
        } => {
            let ptr = v(*ptr);
            let value = v(*value);
            InstKind::AtomicRmw {
                op: *op,
                ty: *ty,
                ptr,
                value,
                atomic: atomic.clone(),
                volatile: *volatile,
                align: *align,
            }
        }
        InstKind::CmpXchg {
            ty,
            ptr,
            cmp,
            new,
            atomic,
            failure,
            weak,
            volatile,
            align,
        } => {
            let ptr = v(*ptr);
            let cmp = v(*cmp);
            let new = v(*new);
            InstKind::CmpXchg {
                ty: *ty,
                ptr,
                cmp,
                new,
                atomic: atomic.clone(),
                failure: *failure,
                weak: *weak,
                volatile: *volatile,
                align: *align,
            }
        }
        InstKind::Fence { atomic } => InstKind::Fence {
            atomic: atomic.clone(),
        },
    }
}

pub(super) fn map_term(
    term: &Terminator,
    v: &mut impl FnMut(Value) -> Value,
    b: &impl Fn(Block) -> Block,
) -> Terminator {
    match term {
        Terminator::Br(l) => Terminator::Br(b(*l)),
        Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } => Terminator::CondBr {
            cond: v(*cond),
            if_true: b(*if_true),
            if_false: b(*if_false),
        },
        Terminator::Switch {
            ty,
            cond,
            default,
            cases,
        } => Terminator::Switch {
            ty: *ty,
            cond: v(*cond),
            default: b(*default),
            cases: cases.iter().map(|(x, l)| (x.clone(), b(*l))).collect(),
        },
        Terminator::Ret(r) => Terminator::Ret(r.map(&mut *v)),
        Terminator::Unreachable => Terminator::Unreachable,
    }
}

/// Re-interns every type of `m` in the fixed walk of [`normal_form`].
pub(super) fn normalize_types(m: &mut Module) {
    let old = std::mem::take(&mut m.types);
    // Dense memo by old handle (a hash lookup per value showed in profiles).
    let mut memo: Vec<Option<Ty>> = Vec::new();
    let mut map = |t: Ty| remap_ty(&old, &mut m.types, &mut memo, t);
    for g in m.globals.keys().collect::<Vec<_>>() {
        m.globals[g].ty = map(m.globals[g].ty);
        if let Some(init) = &mut m.globals[g].init {
            remap_init_types(init, &mut map);
        }
    }
    for f in m.functions.keys().collect::<Vec<_>>() {
        let func = &mut m.functions[f];
        func.ret_ty = map(func.ret_ty);
        for p in &mut func.params {
            p.ty = map(p.ty);
        }
        let Some(body) = &mut func.body else {
            continue;
        };
        for v in body.values.keys().collect::<Vec<_>>() {
            let data = &mut body.values[v];
            data.ty = map(data.ty);
            if let ValueDef::Const(c) = &mut data.def {
                remap_const_types(c, &mut map);
            }
        }
        for i in body.insts.keys().collect::<Vec<_>>() {
            match &mut body.insts[i].kind {
                InstKind::Phi { ty, .. }
                | InstKind::Binary { ty, .. }
                | InstKind::FNeg { ty, .. }
                | InstKind::ICmp { ty, .. }
                | InstKind::FCmp { ty, .. }
                | InstKind::Select { ty, .. }
                | InstKind::Freeze { ty, .. }
                | InstKind::Alloca { ty, .. }
                | InstKind::Load { ty, .. }
                | InstKind::Store { ty, .. } => *ty = map(*ty),
                InstKind::Cast { from, to, .. } => {
                    *from = map(*from);
                    *to = map(*to);
                }
                InstKind::Gep { source_ty, .. } => *source_ty = map(*source_ty),
                InstKind::Call { ret_ty, .. } => *ret_ty = map(*ret_ty),
                InstKind::Mask => {}
                InstKind::ExtractElement { ty, .. }
                | InstKind::InsertElement { ty, .. }
                | InstKind::ShuffleVector { ty, .. }
                | InstKind::ExtractValue { ty, .. }
                | InstKind::InsertValue { ty, .. }
                | InstKind::AtomicRmw { ty, .. }
                | InstKind::CmpXchg { ty, .. } => *ty = map(*ty),
                InstKind::Fence { .. } => {}
            }
        }
        for b in body.blocks.keys().collect::<Vec<_>>() {
            if let Terminator::Switch { ty, .. } = &mut body.blocks[b].term {
                *ty = map(*ty);
            }
        }
    }
}

/// Moves the inline assembly callees (`Module::inline_asm`) after all other
/// functions, keeping the order within each part, and renames every reference
/// (calls, `@f` constants, the source map): the printer writes no `declare` for
/// them, so a re-read file meets them only at their calls, after every
/// function it declares, and this order is the one both reads agree on.
pub(super) fn inline_asm_last(m: &mut Module, source_map: Option<&mut SourceMap>) {
    if m.inline_asm.is_empty() {
        return;
    }
    let is_asm = |f: FuncId| m.inline_asm.contains_key(&f);
    let keys: Vec<FuncId> = m.functions.keys().collect();
    let order: Vec<FuncId> = keys
        .iter()
        .copied()
        .filter(|&f| !is_asm(f))
        .chain(keys.iter().copied().filter(|&f| is_asm(f)))
        .collect();
    if order == keys {
        return;
    }
    let mut new_id = vec![FuncId::from_u32(0); keys.len()];
    for (n, &old) in order.iter().enumerate() {
        new_id[old.index()] = FuncId::from_u32(n as u32);
    }
    let rename = |f: FuncId| new_id[f.index()];
    let old = std::mem::take(&mut m.functions);
    let mut taken: Vec<Option<FunctionData>> = old.values().cloned().map(Some).collect();
    for &f in &order {
        if let Some(data) = taken[f.index()].take() {
            m.functions.push(data);
        }
    }
    m.inline_asm = std::mem::take(&mut m.inline_asm)
        .into_iter()
        .map(|(f, a)| (rename(f), a))
        .collect();
    for g in m.globals.keys().collect::<Vec<_>>() {
        if let Some(init) = &mut m.globals[g].init {
            rename_init_functions(init, &rename);
        }
    }
    for f in m.functions.keys().collect::<Vec<_>>() {
        let Some(body) = &mut m.functions[f].body else {
            continue;
        };
        for i in body.insts.keys().collect::<Vec<_>>() {
            if let InstKind::Call { callee, .. } = &mut body.insts[i].kind {
                *callee = rename(*callee);
            }
        }
        for v in body.values.keys().collect::<Vec<_>>() {
            if let ValueDef::Const(c) = &mut body.values[v].def {
                rename_const_functions(c, &rename);
            }
        }
    }
    if let Some(map) = source_map {
        map.functions = std::mem::take(&mut map.functions)
            .into_iter()
            .map(|(f, spans)| (rename(f), spans))
            .collect();
    }
}

fn rename_init_functions(init: &mut GlobalInit, rename: &dyn Fn(FuncId) -> FuncId) {
    match init {
        GlobalInit::Scalar(c) => rename_const_functions(c, rename),
        GlobalInit::Aggregate(items) => {
            for item in items {
                rename_init_functions(item, rename);
            }
        }
        GlobalInit::Zero | GlobalInit::Undef => {}
    }
}

fn rename_const_functions(c: &mut ConstData, rename: &dyn Fn(FuncId) -> FuncId) {
    match c {
        ConstData::Function(f) => *f = rename(*f),
        ConstData::Elems(items) => {
            for item in items {
                rename_const_functions(item, rename);
            }
        }
        ConstData::Splat(item) => rename_const_functions(item, rename),
        ConstData::Expr(e) => match &mut **e {
            ConstExpr::Cast { arg, .. } => rename_const_functions(arg, rename),
            ConstExpr::Gep { base, indices, .. } => {
                rename_const_functions(base, rename);
                for (_, index) in indices {
                    rename_const_functions(index, rename);
                }
            }
        },
        _ => {}
    }
}

/// Re-interns the types inside the constant expressions of `init`.
fn remap_init_types(init: &mut GlobalInit, map: &mut dyn FnMut(Ty) -> Ty) {
    match init {
        GlobalInit::Scalar(c) => remap_const_types(c, map),
        GlobalInit::Aggregate(items) => {
            for item in items {
                remap_init_types(item, map);
            }
        }
        GlobalInit::Zero | GlobalInit::Undef => {}
    }
}

/// Re-interns the types inside the constant expressions of `c`, operands before
/// the expression's own types (the order the parser meets them in is not
/// needed: the walk is fixed, which is all the normal form asks).
fn remap_const_types(c: &mut ConstData, map: &mut dyn FnMut(Ty) -> Ty) {
    match c {
        ConstData::Elems(items) => {
            for item in items {
                remap_const_types(item, map);
            }
        }
        ConstData::Splat(item) => remap_const_types(item, map),
        ConstData::Expr(e) => match &mut **e {
            ConstExpr::Cast { from, arg, to, .. } => {
                remap_const_types(arg, map);
                *from = map(*from);
                *to = map(*to);
            }
            ConstExpr::Gep {
                source_ty,
                base_ty,
                base,
                indices,
                ..
            } => {
                remap_const_types(base, map);
                *source_ty = map(*source_ty);
                *base_ty = map(*base_ty);
                for (ity, index) in indices {
                    remap_const_types(index, map);
                    *ity = map(*ity);
                }
            }
        },
        _ => {}
    }
}

pub(super) fn remap_ty(
    old: &TypeTable,
    new: &mut TypeTable,
    memo: &mut Vec<Option<Ty>>,
    t: Ty,
) -> Ty {
    if let Some(&Some(n)) = memo.get(t.as_u32() as usize) {
        return n;
    }
    let data = match old.get(t).clone() {
        TypeData::Array(n, elem) => TypeData::Array(n, remap_ty(old, new, memo, elem)),
        TypeData::Vector(n, elem) => TypeData::Vector(n, remap_ty(old, new, memo, elem)),
        TypeData::Struct { fields, packed } => TypeData::Struct {
            fields: fields
                .into_iter()
                .map(|f| remap_ty(old, new, memo, f))
                .collect(),
            packed,
        },
        other => other,
    };
    let n = new.intern(data);
    if memo.len() <= t.as_u32() as usize {
        memo.resize(t.as_u32() as usize + 1, None);
    }
    memo[t.as_u32() as usize] = Some(n);
    n
}
