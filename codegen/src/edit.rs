//! [`Editor`]: the one way the transforms change a function body. It owns a copy
//! of the module with the function's body taken out, hands out fresh names (a
//! hash set, so naming stays O(1) on 100k-block functions), builds instructions
//! and blocks, rewires edges and phis, and puts the body back in
//! [`Editor::finish`]. New blocks are placed in the layout in one pass at the end
//! (anchored before or after an existing block), never by inserting into the
//! layout vector one at a time.
//!
//! Everything built here is plain P-LLVM (thesis Fig. 4.2): `total` is the
//! [W-CMD-TOTAL] modifier, block predicates are `val_msk` (Def. 7), and the
//! horizontal builtins are the θ entries of Fig. 4.15 (`@pllvm.any`, ...), declared
//! on first use as the parser declares them.

use num_bigint::BigUint;
use pllvm_semantics::ir::{
    BinOp, Block, BlockData, Body, ConstData, FuncId, FunctionData, ICmpPred, Inst, InstData,
    InstKind, IntFlags, Module, Terminator, Value, ValueData, ValueDef,
};
use pllvm_semantics::names::Namespace;
use pllvm_semantics::types::{Ty, TypeTable};
use std::collections::{HashMap, HashSet};

/// New blocks waiting for their place in the layout ([`Editor::take_placements`]).
#[derive(Debug, Default)]
pub struct Placements {
    /// The blocks to go right before each anchor, in the order placed.
    pub before: HashMap<Block, Vec<Block>>,
    /// The blocks to go right after each anchor, in the order placed.
    pub after: HashMap<Block, Vec<Block>>,
    /// The blocks to go at the end of the layout, in the order placed.
    pub at_end: Vec<Block>,
}

/// A function body under construction (see the module doc).
pub struct Editor {
    module: Module,
    func: FuncId,
    body: Body,
    block_names: Namespace,
    value_names: Namespace,
    before: HashMap<Block, Vec<Block>>,
    after: HashMap<Block, Vec<Block>>,
    at_end: Vec<Block>,
}

impl Editor {
    /// Starts editing `func` of a copy of `module` (which must have a body).
    pub fn new(module: &Module, func: FuncId) -> Editor {
        let mut module = module.clone();
        let body = module.functions[func].body.take().unwrap_or_default();
        let block_names = Namespace::blocks_of(&body);
        let value_names = Namespace::values_of(&body);
        Editor {
            module,
            func,
            body,
            block_names,
            value_names,
            before: HashMap::new(),
            after: HashMap::new(),
            at_end: Vec::new(),
        }
    }

    /// The function being edited.
    pub fn func(&self) -> FuncId {
        self.func
    }

    /// The module around the body (its body slot is empty while editing).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The body.
    pub fn body(&self) -> &Body {
        &self.body
    }

    /// The body, mutably.
    pub fn body_mut(&mut self) -> &mut Body {
        &mut self.body
    }

    /// The module's type table.
    pub fn types(&mut self) -> &mut TypeTable {
        &mut self.module.types
    }

    /// Places the blocks created since the last call and puts the body back.
    pub fn finish(mut self) -> Module {
        self.place_pending();
        self.module.functions[self.func].body = Some(self.body);
        self.module
    }

    /// A copy of the module as it stands (pending placements applied), for an
    /// analysis to run on mid-way.
    pub fn snapshot(&mut self) -> Module {
        self.place_pending();
        let mut m = self.module.clone();
        m.functions[self.func].body = Some(self.body.clone());
        m
    }

    /// The placements made since the last time they were applied, taken out
    /// unapplied. A caller that takes them keeps the layout itself and sets it
    /// with [`Editor::body_mut`] (the divergent loop transform's `Nest` orders
    /// the new blocks by key instead of rebuilding the layout vector after
    /// every nesting depth).
    pub fn take_placements(&mut self) -> Placements {
        Placements {
            before: std::mem::take(&mut self.before),
            after: std::mem::take(&mut self.after),
            at_end: std::mem::take(&mut self.at_end),
        }
    }

    fn place_pending(&mut self) {
        if self.before.is_empty() && self.after.is_empty() && self.at_end.is_empty() {
            return;
        }
        let mut layout = Vec::with_capacity(self.body.layout.len() + self.at_end.len());
        fn emit(
            b: Block,
            before: &HashMap<Block, Vec<Block>>,
            after: &HashMap<Block, Vec<Block>>,
            out: &mut Vec<Block>,
        ) {
            // Iterative over chains anchored on new blocks, which are themselves
            // placed around their anchors (no recursion depth on long chains).
            let mut stack = vec![(b, false)];
            while let Some((x, expanded)) = stack.pop() {
                if expanded {
                    out.push(x);
                    if let Some(list) = after.get(&x) {
                        for &a in list.iter().rev() {
                            stack.push((a, false));
                        }
                    }
                    continue;
                }
                stack.push((x, true));
                if let Some(list) = before.get(&x) {
                    for &a in list.iter().rev() {
                        stack.push((a, false));
                    }
                }
            }
        }
        for &b in &self.body.layout {
            emit(b, &self.before, &self.after, &mut layout);
        }
        for &b in &self.at_end.clone() {
            emit(b, &self.before, &self.after, &mut layout);
        }
        self.body.layout = layout;
        self.before.clear();
        self.after.clear();
        self.at_end.clear();
    }

    /// `stem`, or `stem.N` for the first N no block is called yet; reserved.
    pub fn fresh_block_name(&mut self, stem: &str) -> String {
        self.block_names.take(stem)
    }

    /// A new, empty block called `prefixN` for the first N no block is called yet
    /// (the poster's `FLOW0`, `FLOW1`, ...), ending in `term`; placed as
    /// [`Editor::new_block`]'s blocks are.
    pub fn new_numbered_block(&mut self, prefix: &str, term: Terminator) -> Block {
        let name = self.block_names.take_numbered(prefix);
        self.push_block(name, term)
    }

    /// `stem`, or `stem.N` for the first N no value is called yet; reserved.
    pub fn fresh_value_name(&mut self, stem: &str) -> String {
        self.value_names.take(stem)
    }

    /// A new, empty block called `stem` (made unique) ending in `term`; it is not in
    /// the layout until placed with [`Editor::place_before`], [`Editor::place_after`]
    /// or [`Editor::place_at_end`].
    pub fn new_block(&mut self, stem: &str, term: Terminator) -> Block {
        let name = self.fresh_block_name(stem);
        self.push_block(name, term)
    }

    fn push_block(&mut self, name: String, term: Terminator) -> Block {
        self.body.blocks.push(BlockData {
            name,
            predicate: None,
            phis: Vec::new(),
            body: Vec::new(),
            term,
        })
    }

    /// Puts the new block `b` right before `anchor` in the layout.
    pub fn place_before(&mut self, b: Block, anchor: Block) {
        self.before.entry(anchor).or_default().push(b);
    }

    /// Puts the new block `b` right after `anchor` (after earlier blocks placed after it).
    pub fn place_after(&mut self, b: Block, anchor: Block) {
        self.after.entry(anchor).or_default().push(b);
    }

    /// Puts the new block `b` at the end of the layout.
    pub fn place_at_end(&mut self, b: Block) {
        self.at_end.push(b);
    }

    /// A new instruction (not yet in any block) with a result of type `ty` named
    /// after `stem`.
    pub fn new_inst(&mut self, kind: InstKind, ty: Ty, stem: &str, total: bool) -> (Inst, Value) {
        let inst = self.body.insts.next_key();
        let name = self.fresh_value_name(stem);
        let value = self.body.values.push(ValueData {
            ty,
            name: Some(name),
            def: ValueDef::Inst(inst),
        });
        self.body.insts.push(InstData {
            kind,
            result: Some(value),
            total,
        });
        (inst, value)
    }

    /// A new instruction without a result (`store`, a `void` call), not yet in any block.
    pub fn new_void_inst(&mut self, kind: InstKind, total: bool) -> Inst {
        self.body.insts.push(InstData {
            kind,
            result: None,
            total,
        })
    }

    /// Appends a command with a result to the body of `block`; returns the result.
    pub fn append(
        &mut self,
        block: Block,
        kind: InstKind,
        ty: Ty,
        stem: &str,
        total: bool,
    ) -> Value {
        let (inst, value) = self.new_inst(kind, ty, stem, total);
        self.body.blocks[block].body.push(inst);
        value
    }

    /// Adds `phi ty incoming [shadow(s)]` after the phis of `block`.
    pub fn phi(
        &mut self,
        block: Block,
        ty: Ty,
        incoming: Vec<(Value, Block)>,
        shadow: Option<Value>,
        stem: &str,
    ) -> Value {
        let kind = InstKind::Phi {
            ty,
            incoming,
            shadow,
        };
        let (inst, value) = self.new_inst(kind, ty, stem, false);
        self.body.blocks[block].phis.push(inst);
        value
    }

    /// Appends `op ty a, b` to `block`.
    pub fn binary(
        &mut self,
        block: Block,
        op: BinOp,
        ty: Ty,
        (lhs, rhs): (Value, Value),
        stem: &str,
        total: bool,
    ) -> Value {
        let kind = InstKind::Binary {
            op,
            flags: IntFlags::default(),
            ty,
            lhs,
            rhs,
        };
        self.append(block, kind, ty, stem, total)
    }

    /// Appends `select i1 c, ty t, ty f` to `block`.
    pub fn select(
        &mut self,
        block: Block,
        ty: Ty,
        (cond, if_true, if_false): (Value, Value, Value),
        stem: &str,
        total: bool,
    ) -> Value {
        let kind = InstKind::Select {
            ty,
            cond,
            if_true,
            if_false,
        };
        self.append(block, kind, ty, stem, total)
    }

    /// Appends `icmp eq ty a, b` (or another predicate) to `block`.
    pub fn icmp(
        &mut self,
        block: Block,
        pred: ICmpPred,
        ty: Ty,
        (lhs, rhs): (Value, Value),
        stem: &str,
        total: bool,
    ) -> Value {
        let kind = InstKind::ICmp { pred, ty, lhs, rhs };
        self.append(block, kind, TypeTable::I1, stem, total)
    }

    /// `a ∧ b` as `select i1 a, i1 b, i1 false`: defined where `a` is false even
    /// when `b` is ⊤ (LLVM's `select` only reads the chosen operand), which is
    /// what a predicate computed in lanes that did not compute `b` needs.
    pub fn and_guarded(&mut self, block: Block, a: Value, b: Value, stem: &str) -> Value {
        let f = self.const_bool(false);
        self.select(block, TypeTable::I1, (a, b, f), stem, true)
    }

    /// `a ∨ b` as `select i1 a, i1 true, i1 b`.
    pub fn or_guarded(&mut self, block: Block, a: Value, b: Value, stem: &str) -> Value {
        let t = self.const_bool(true);
        self.select(block, TypeTable::I1, (a, t, b), stem, true)
    }

    /// `¬a` as `xor i1 a, true`.
    pub fn not(&mut self, block: Block, a: Value, stem: &str, total: bool) -> Value {
        let t = self.const_bool(true);
        self.binary(block, BinOp::Xor, TypeTable::I1, (a, t), stem, total)
    }

    /// Appends `call ret @pllvm.NAME(args)` (a builtin of Fig. 4.15), declaring it
    /// on first use.
    pub fn call_builtin(
        &mut self,
        block: Block,
        name: &str,
        ret: Ty,
        args: &[(Value, Ty)],
        stem: &str,
        total: bool,
    ) -> Value {
        let arg_tys: Vec<Ty> = args.iter().map(|&(_, t)| t).collect();
        let callee = self.declare(&format!("pllvm.{name}"), ret, &arg_tys);
        let kind = InstKind::Call {
            callee,
            ret_ty: ret,
            args: args.iter().map(|&(v, _)| v).collect(),
            bundles: Vec::new(),
        };
        self.append(block, kind, ret, stem, total)
    }

    /// The function `@name`, declared with this signature if the module lacks it.
    pub fn declare(&mut self, name: &str, ret: Ty, args: &[Ty]) -> FuncId {
        if let Some(f) = self.module.function_by_name(name) {
            return f;
        }
        self.module
            .functions
            .push(FunctionData::declaration(name, ret, args))
    }

    /// The constant `true` or `false` of `i1`.
    pub fn const_bool(&mut self, b: bool) -> Value {
        self.body
            .add_const(TypeTable::I1, ConstData::Int(BigUint::from(u8::from(b))))
    }

    /// The integer constant `n` of type `ty` (its bit pattern modulo 2^N).
    pub fn const_int(&mut self, ty: Ty, n: u64) -> Value {
        self.body.add_const(ty, ConstData::Int(BigUint::from(n)))
    }

    /// `undef` of type `ty`.
    pub fn undef(&mut self, ty: Ty) -> Value {
        self.body.add_const(ty, ConstData::Undef)
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> Ty {
        self.body.values[v].ty
    }

    /// A name stem for `v`: its name, or `v`.
    pub fn stem(&self, v: Value) -> String {
        self.body.values[v]
            .name
            .clone()
            .unwrap_or_else(|| "v".into())
    }

    /// The name of block `b`.
    pub fn block_name(&self, b: Block) -> &str {
        &self.body.blocks[b].name
    }

    /// Replaces every successor `from` of `block`'s terminator with `to`.
    pub fn retarget(&mut self, block: Block, from: Block, to: Block) {
        retarget(&mut self.body.blocks[block].term, from, to);
    }

    /// In the phis of `block`, the arms from `old_pred` now come from `new_pred`.
    pub fn rename_incoming(&mut self, block: Block, old_pred: Block, new_pred: Block) {
        for &phi in &self.body.blocks[block].phis {
            if let InstKind::Phi { incoming, .. } = &mut self.body.insts[phi].kind {
                for (_, b) in incoming.iter_mut() {
                    if *b == old_pred {
                        *b = new_pred;
                    }
                }
            }
        }
    }

    /// Splits the edge `from → to` with a new block `stem` (placed after `from`) that
    /// branches to `to`; the phis of `to` read their `from` arm from the new block.
    pub fn split_edge(&mut self, from: Block, to: Block, stem: &str) -> Block {
        let mid = self.new_block(stem, Terminator::Br(to));
        self.place_after(mid, from);
        self.retarget(from, to, mid);
        self.rename_incoming(to, from, mid);
        mid
    }

    /// Sends every edge from a block of `sources` to `target` through a new block
    /// `stem` (placed right before `target`, or after `after` if given) that
    /// branches to `target`. Each phi of `target` keeps its other arms and gets one
    /// from the new block: the value the moved arms agree on, or a new phi of them
    /// in the new block (the funnel of thesis §2.4's preheaders and latches).
    pub fn funnel(
        &mut self,
        target: Block,
        sources: &[Block],
        stem: &str,
        after: Option<Block>,
    ) -> Block {
        let mid = self.new_block(stem, Terminator::Br(target));
        match after {
            Some(a) => self.place_after(mid, a),
            None => self.place_before(mid, target),
        }
        for &s in sources {
            self.retarget(s, target, mid);
        }
        for phi in self.body.blocks[target].phis.clone() {
            let InstKind::Phi { ty, incoming, .. } = self.body.insts[phi].kind.clone() else {
                continue;
            };
            let mut kept: Vec<(Value, Block)> = Vec::new();
            let mut moved: Vec<(Value, Block)> = Vec::new();
            for arm in incoming {
                if sources.contains(&arm.1) {
                    moved.push(arm);
                } else {
                    kept.push(arm);
                }
            }
            let Some(&(first, _)) = moved.first() else {
                continue;
            };
            let value = if moved.iter().all(|&(v, _)| v == first) {
                first
            } else {
                let name = self.body.insts[phi]
                    .result
                    .map(|v| self.stem(v))
                    .unwrap_or_else(|| "v".into());
                let name = format!("{}.{name}", self.body.blocks[mid].name);
                self.phi(mid, ty, moved, None, &name)
            };
            kept.push((value, mid));
            if let InstKind::Phi { incoming, .. } = &mut self.body.insts[phi].kind {
                *incoming = kept;
            }
        }
        mid
    }

    /// The predecessors of every block, in layout order of the predecessor, each
    /// listed once.
    pub fn predecessors(&self) -> HashMap<Block, Vec<Block>> {
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &self.body.layout {
            let mut succs = self.body.blocks[b].term.successors();
            succs.dedup();
            let mut seen = HashSet::new();
            for s in succs {
                if seen.insert(s) {
                    preds.entry(s).or_default().push(b);
                }
            }
        }
        preds
    }

    /// Rewrites every use of a value in `map` (operands, phi arms, shadows,
    /// predicates, terminators) to its image; one pass over the body.
    pub fn replace_uses(&mut self, map: &HashMap<Value, Value>) {
        if map.is_empty() {
            return;
        }
        let image = |v: &mut Value| {
            // Chains (a -> b -> c) resolve fully; a cycle would be a caller bug and
            // stops after as many hops as the map has entries.
            let mut hops = 0;
            while let Some(&n) = map.get(v) {
                if n == *v || hops > map.len() {
                    break;
                }
                *v = n;
                hops += 1;
            }
        };
        for inst in self.body.insts.keys().collect::<Vec<_>>() {
            for_each_operand_mut(&mut self.body.insts[inst].kind, &image);
        }
        for b in self.body.layout.clone() {
            let data = &mut self.body.blocks[b];
            if let Some(p) = &mut data.predicate {
                image(p);
            }
            match &mut data.term {
                Terminator::CondBr { cond, .. } | Terminator::Switch { cond, .. } => image(cond),
                Terminator::Ret(Some(v)) => image(v),
                _ => {}
            }
        }
    }
}

/// Applies `f` to every value operand of `kind` (phi arms and shadow included).
pub fn for_each_operand_mut(kind: &mut InstKind, f: &impl Fn(&mut Value)) {
    match kind {
        InstKind::Phi {
            incoming, shadow, ..
        } => {
            for (v, _) in incoming.iter_mut() {
                f(v);
            }
            if let Some(s) = shadow {
                f(s);
            }
        }
        InstKind::Binary { lhs, rhs, .. }
        | InstKind::ICmp { lhs, rhs, .. }
        | InstKind::FCmp { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        InstKind::FNeg { arg, .. } | InstKind::Cast { arg, .. } | InstKind::Freeze { arg, .. } => {
            f(arg)
        }
        InstKind::Select {
            cond,
            if_true,
            if_false,
            ..
        } => {
            f(cond);
            f(if_true);
            f(if_false);
        }
        InstKind::Alloca { count, .. } => {
            if let Some(c) = count {
                f(c);
            }
        }
        InstKind::Load { ptr, .. } => f(ptr),
        InstKind::Store { value, ptr, .. } => {
            f(value);
            f(ptr);
        }
        InstKind::Gep { base, indices, .. } => {
            f(base);
            for i in indices {
                f(&mut i.value);
            }
        }
        InstKind::Call { args, .. } => {
            for a in args {
                f(a);
            }
        }
        InstKind::Mask => {}
        InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::AtomicRmw { .. }
        | InstKind::CmpXchg { .. }
        | InstKind::Fence { .. } => kind.operands_mut().into_iter().for_each(f),
    }
}

/// Points successor slot `slot` of `term` (successor-index order) at `to`.
pub fn set_successor(term: &mut Terminator, slot: usize, to: Block) {
    match term {
        Terminator::Br(b) if slot == 0 => *b = to,
        Terminator::CondBr {
            if_true, if_false, ..
        } => match slot {
            0 => *if_true = to,
            _ => *if_false = to,
        },
        Terminator::Switch { default, cases, .. } => {
            if slot == 0 {
                *default = to;
            } else if let Some(case) = cases.get_mut(slot - 1) {
                case.1 = to;
            }
        }
        _ => {}
    }
}

/// Replaces every successor `from` of `term` with `to`.
pub fn retarget(term: &mut Terminator, from: Block, to: Block) {
    let swap = |b: &mut Block| {
        if *b == from {
            *b = to;
        }
    };
    match term {
        Terminator::Br(b) => swap(b),
        Terminator::CondBr {
            if_true, if_false, ..
        } => {
            swap(if_true);
            swap(if_false);
        }
        Terminator::Switch { default, cases, .. } => {
            swap(default);
            for (_, b) in cases {
                swap(b);
            }
        }
        Terminator::Ret(_) | Terminator::Unreachable => {}
    }
}
