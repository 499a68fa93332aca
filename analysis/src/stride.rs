//! The stride-alignment lattice of thesis Ch. 10 (the sa-lattice, Fig. 10.4 and
//! 10.6) and its abstract transformers (§10.4: constants, integer arithmetic
//! Fig. 10.9-10.10, the lane id §10.4.3, comparisons Fig. 10.12, bit arithmetic
//! Fig. 10.14 and `or`, address computation §10.4.6), run as a refinement of the
//! thesis analysis of Ch. 6-7 ([`crate::thesis`]): the same worklist, the same
//! control divergence (`sdep*`, `tdep*`, `adep*`, `cdep*` from `global_joins`),
//! the same rules for phis ([DA-PHI-D] read in the sa-lattice, §10.4), memory and
//! calls; only the shapes of integer and pointer values are richer. A branch whose
//! condition the sa-lattice proves uniform causes no control divergence (§10.3).
//!
//! # Shapes and what they mean in pllvm
//!
//! - `(s, a)` (*strided*, Fig. 10.4): in every dynamic instance, lane `t` holds
//!   `a·k + s·t` for one `k ∈ ℤ`. With `s = 0` this is a uniform shape; `(1, 0)`
//!   is the lane id exactly (§10.4.3).
//! - `a` (*varying*, `a > 0`): every lane holds some multiple of `a`.
//! - ⊥: not reached yet.
//!
//! The thesis asks γ to be read "in the native bit width" (§10.1, "Machine Integer
//! Interpretation"): for an `iN` value the equations hold modulo 2^N, pointers are
//! 64-bit byte addresses, and a pointer into a stack object counts up to the object
//! (each lane has its own copy, Fig. 6.11: the offsets follow the shape). Modulo
//! 2^N, "a multiple of `a`" only constrains the power of two in `a` (an odd factor
//! is invertible), so the transformers that reason about order or bits
//! (comparisons, shifts, division, `and`/`or`, extensions) use only that power of
//! two, `pow2(a)`; ring operations (`add`, `sub`, `mul`) keep `a` as the thesis
//! writes it. Undefined lanes (⊤): a strided shape holds when the executing lanes
//! are all ⊤ or all satisfy the equation; a varying shape says nothing about ⊤
//! lanes. Operations whose flags make some lanes ⊤ (`nsw`, `nuw`, `exact`,
//! `disjoint`, `inbounds`) on non-uniform operands, and `freeze` of a non-uniform
//! value, therefore give a varying shape.
//!
//! # Where pllvm departs from the thesis text
//!
//! Each was needed for soundness against the interpreter
//! (`proofs/tests/stride_soundness.rs`) and is shown in `corpus/divergence/fig10-*.ll`:
//! - Fig. 10.6 orders `(s, a) ⊑ (s, a')` iff `max(a', 1) | a`, which puts the exact
//!   `(s, 0)` above every `(s, a)`; γ needs `a' | a` (0 is a multiple of every
//!   number), so `(s, a) ⊔ (s, a') = (s, gcd(a, a'))`.
//! - Fig. 10.12, `icmp sge` with strides `s < s'`: the lines meet in lane 0 (equal
//!   bases), where `x ≥ y` holds, and part in lane 1, where it does not; and with
//!   wrap-around modulo 2^N a large stride crosses the signed boundary. pllvm calls an
//!   ordered comparison of strided values uniform when both stay inside one aligned
//!   block of `g = pow2(gcd(a, a'))` values (`0 ≤ s·(W-1) < g`, same for `s'`) and
//!   the strides are equal, or the predicate is non-strict on the side of the larger
//!   stride (`x ≥ y`, `x < y` when `s > s'`; `x ≤ y`, `x > y` when `s < s'`).
//!   Equality is uniform when the strides agree (Fig. 10.12). W is a parameter of
//!   the analysis (`--width`); without it only stride-0 facts use it.
//! - Fig. 10.10, division by a constant `c` with `c | a`: modulo 2^N an odd factor
//!   of `a` is no constraint (`36·k` can be 12, and `12 / 9 = 1`), so pllvm divides
//!   only by powers of two (an exact shift), and needs the lanes inside one block.
//! - Fig. 10.14, `shl x y` with uniform `y : (0, a')`: `y` may be 0, so the result is
//!   only as aligned as `x` (`a`, not `a·2^{a'}`).
//!
//! # Thread arrays and chunks
//!
//! §10.4.3 reads the thread id as the lane id, `(1, 0)`: a thread array alone, as
//! the interpreter runs it ([`ThreadIds::Array`]). The native backend runs a larger
//! thread array in chunks of W lanes whose first thread id is a multiple of W
//! (`codegen::widen`); there lane `t` holds `c·W + t` for its chunk `c`, the shape
//! `(1, W)` ([`ThreadIds::Chunk`]). Every transformer reads only the shapes, so the
//! analysis is the same otherwise; with `W` a power of two the thread id extends
//! with its stride (`zext`, `sext`: the lanes of a chunk never straddle 2^m), which
//! is what makes clang's `A[zext(thread_id)]` a contiguous access.

use crate::calls::{CallKind, call_kind};
use crate::engine::{Refinement, run_refined};
use crate::facts::CfgFacts;
use crate::result::{AnalysisKind, InitShapes, Uniformity};
use crate::sa_shape::{SaShape, gcd, mul_align, pow2, signed_rep, two_to};
use crate::shape::Shape;
use crate::state::DaState;
use crate::thesis::GlobalJoins;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{
    BinOp, Block, Body, CastOp, ConstData, FuncId, GepIndex, ICmpPred, Inst, InstKind, IntFlags,
    Module, Param, Value, ValueDef,
};
use pllvm_semantics::types::{Ty, TypeData};
use std::collections::BTreeMap;

/// The bit width the sa-lattice reads `value` in: N for `iN` with N ≤ 64, 64 for
/// pointers; `None` for every other type (floats, wider integers), which keep the
/// basic lattice (§10.1: "All other values ... still use the basic divergence
/// lattice").
pub fn sa_bits(module: &Module, body: &Body, value: Value) -> Option<u32> {
    let ty = body.values[value].ty;
    if module.types.is_ptr(ty) {
        return Some(64);
    }
    module
        .types
        .int_width(ty)
        .filter(|&w| (1..=64).contains(&w))
}

/// The thread ids of the lanes the sa-lattice reasons about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadIds {
    /// A thread array alone, of at most W lanes (`None`: any width): lane `t`'s
    /// thread id is `t`, the shape `(1, 0)` (§10.4.3).
    Array(Option<u32>),
    /// One chunk of W lanes of a larger thread array (the native backend's
    /// chunks, and launches whose thread arrays start at multiples of W): lane
    /// `t`'s thread id is `c·W + t` for one `c`, the shape `(1, W)`.
    Chunk(u32),
}

impl ThreadIds {
    /// W, when known.
    pub fn width(self) -> Option<u32> {
        match self {
            ThreadIds::Array(w) => w,
            ThreadIds::Chunk(w) => Some(w),
        }
    }

    /// The sa-shape of `thread_id`: `(1, 0)` in a thread array alone, `(1, W)`
    /// in a chunk.
    pub fn thread_id(self) -> SaShape {
        SaShape::Strided {
            stride: 1,
            align: match self {
                ThreadIds::Array(_) => 0,
                ThreadIds::Chunk(w) => u128::from(w),
            },
        }
    }
}

/// The sa-lattice analysis (`--analysis sa`): the thesis analysis of Ch. 6-7 with
/// value shapes from the sa-lattice, for the thread ids `ids` describes (a
/// thread array alone or one chunk of W lanes). The basic shapes of the result are the sa-shapes read in
/// the basic lattice (§10.2.1); `strides` holds the sa-shape of every integer and
/// pointer value.
pub fn analyze(
    module: &Module,
    func: FuncId,
    body: &Body,
    facts: &CfgFacts,
    init: &InitShapes,
    ids: ThreadIds,
) -> Uniformity {
    let mut sa = SaRefinement {
        module,
        body,
        params: &module.functions[func].params,
        ids,
        shapes: SecondaryMap::with_default(SaShape::Bottom),
    };
    let oracle = GlobalJoins { facts };
    let mut result = run_refined(
        module,
        func,
        body,
        facts,
        init,
        oracle,
        AnalysisKind::Sa,
        &mut sa,
    );
    let mut strides = BTreeMap::new();
    for (v, _) in body.values.iter() {
        if matches!(body.values[v].def, ValueDef::Const(_)) {
            continue;
        }
        let Some(n) = sa_bits(module, body, v) else {
            continue;
        };
        strides.insert(v, reconcile(sa.shapes[v], result.values[v], n));
    }
    result.strides = strides;
    result
}

/// The sa-shape kept where the engine stored a basic shape: a uniform sa-shape the
/// engine made varying (a stack object that turned varying, §6.6) is varying with
/// the same alignment; a non-uniform sa-shape where the basic transformers proved
/// `u` is uniform (the sa-lattice is never less precise than the basic one).
fn reconcile(sa: SaShape, basic: Shape, n: u32) -> SaShape {
    match (sa, basic) {
        (SaShape::Bottom, b) => SaShape::from_basic(b),
        (s, Shape::Varying) if s.is_uniform() => SaShape::varying(s.thread_align().unwrap_or(1), n),
        (s, Shape::Uniform) if !s.is_uniform() => {
            SaShape::uniform(s.thread_align().unwrap_or(1)).normalized(n)
        }
        (s, _) => s,
    }
}

/// The sa-lattice as a [`Refinement`] of the thesis engine.
struct SaRefinement<'a> {
    module: &'a Module,
    body: &'a Body,
    params: &'a [Param],
    ids: ThreadIds,
    shapes: SecondaryMap<Value, SaShape>,
}

impl Refinement for SaRefinement<'_> {
    fn param(&mut self, _facts: &dyn DaState, value: Value, basic: Shape) -> Shape {
        let Some(n) = sa_bits(self.module, self.body, value) else {
            return basic;
        };
        // InitShapes gives u / v; an `align A` attribute on a pointer parameter
        // gives its alignment (Fig. 10.5: "the pointer is aligned to 8 byte").
        let align = self
            .param_align(value)
            .filter(|_| self.module.types.is_ptr(self.body.values[value].ty))
            .unwrap_or(1);
        let s = match basic {
            Shape::Uniform => SaShape::uniform(align),
            Shape::Varying => SaShape::varying(align, n),
            Shape::Bottom => SaShape::Bottom,
        }
        .normalized(n);
        self.shapes[value] = s;
        basic
    }

    fn inst(
        &mut self,
        facts: &dyn DaState,
        inst: Inst,
        value: Value,
        basic: Shape,
    ) -> (Shape, bool) {
        let Some(n) = sa_bits(self.module, self.body, value) else {
            // Not an integer or pointer: the basic lattice (§10.1).
            return (basic, false);
        };
        let computed = self.transfer(facts, inst, basic, n);
        // Never less precise than the basic transformers (§10.2.1).
        let computed = match (computed, basic) {
            (s, Shape::Uniform) if s != SaShape::Bottom && !s.is_uniform() => {
                SaShape::uniform(s.thread_align().unwrap_or(1)).normalized(n)
            }
            (s, _) => s,
        };
        let old = self.shapes[value];
        let new = old.join(computed).normalized(n);
        let new = if old == SaShape::Bottom && computed == SaShape::Bottom {
            SaShape::Bottom
        } else {
            new
        };
        self.shapes[value] = new;
        (new.to_basic(), new != old)
    }
}

impl SaRefinement<'_> {
    fn param_align(&self, value: Value) -> Option<u128> {
        let ValueDef::Param(k) = self.body.values[value].def else {
            return None;
        };
        let p = self.params.get(k as usize)?;
        p.attrs
            .iter()
            .find_map(|a| a.strip_prefix("align").map(str::trim))
            .and_then(|a| a.trim_start_matches('(').trim_end_matches(')').parse().ok())
    }

    /// The width of the thread array, when the analysis knows it.
    fn lanes(&self) -> Option<u128> {
        self.ids.width().map(u128::from)
    }

    /// Whether `s·t` for every lane `t < W` stays below `g` (and is never
    /// negative): the lanes of a strided value with a `g`-aligned base stay in one
    /// block of `g` values, so no wrap-around (signed or unsigned) separates them.
    fn in_block(&self, stride: i128, g: u128) -> bool {
        if stride == 0 {
            return true;
        }
        match (stride > 0, self.lanes()) {
            (true, Some(w)) => (stride as u128)
                .checked_mul(w.saturating_sub(1))
                .is_some_and(|span| span < g),
            _ => false,
        }
    }

    /// [DA-CONST] in the sa-lattice (§10.4.1): `⟦c⟧# = (0, |c|)`.
    fn constant(&self, value: Value, n: u32) -> SaShape {
        match &self.body.values[value].def {
            ValueDef::Const(ConstData::Int(bits)) => {
                let low = bits.iter_u64_digits().next().unwrap_or(0);
                let c = signed_rep(i128::from(low), n);
                SaShape::uniform(c.unsigned_abs()).normalized(n)
            }
            ValueDef::Const(ConstData::Null | ConstData::Zero) => SaShape::uniform(0),
            _ => SaShape::uniform(1),
        }
    }

    /// `constval(x)` (§10.4.1): the value of an integer constant, as a signed
    /// number of its type.
    fn constval(&self, value: Value) -> Option<i128> {
        let ValueDef::Const(c) = &self.body.values[value].def else {
            return None;
        };
        let n = sa_bits(self.module, self.body, value)?;
        match c {
            ConstData::Int(bits) => {
                let low = bits.iter_u64_digits().next().unwrap_or(0);
                Some(signed_rep(i128::from(low), n))
            }
            ConstData::Zero | ConstData::Null => Some(0),
            _ => None,
        }
    }

    /// `A(x)` for a use of `value` in `user` (§10.4): [DA-ID] / [DA-CONST], with the
    /// thesis engine's LCSSA rule (lanes that left a loop in different iterations
    /// see different values, each still a multiple of its `threadalign`).
    fn operand(&self, facts: &dyn DaState, user: Block, value: Value) -> SaShape {
        let Some(n) = sa_bits(self.module, self.body, value) else {
            let b = match &self.body.values[value].def {
                ValueDef::Const(_) => Shape::Uniform,
                _ if facts.live_out_varying(user, value) => Shape::Varying,
                _ => facts.basic(value),
            };
            return SaShape::from_basic(b);
        };
        if let ValueDef::Const(_) = &self.body.values[value].def {
            return self.constant(value, n);
        }
        let s = reconcile(self.shapes[value], facts.basic(value), n);
        let s = if self.shapes[value] == SaShape::Bottom && facts.basic(value) == Shape::Bottom {
            SaShape::Bottom
        } else {
            s
        };
        match s.thread_align() {
            Some(a) if facts.live_out_varying(user, value) => SaShape::varying(a, n),
            _ => s,
        }
    }

    /// The transformer of `inst` (result read modulo 2^n).
    fn transfer(&self, facts: &dyn DaState, inst: Inst, basic: Shape, n: u32) -> SaShape {
        let data = &self.body.insts[inst];
        let Some(b) = facts.block_of(inst) else {
            return SaShape::Bottom;
        };
        let op = |v: Value| self.operand(facts, b, v);
        // The engine's own rule decides (stack addresses, `total`, memory, ...).
        let basic_result = || SaShape::from_basic(basic);
        if data.total {
            // [W-CMD-TOTAL] reads every lane: the engine's `total` rule decides.
            return basic_result();
        }
        // Vector and aggregate values are not affine in the thread id: the
        // engine's uniform / varying, without a stride.
        let types = &self.module.types;
        let composite = |v: Value| {
            let t = self.body.values[v].ty;
            types.vector(t).is_some() || types.is_aggregate(t)
        };
        if data.result.is_some_and(composite) || data.kind.operands().into_iter().any(composite) {
            return basic_result();
        }
        let out = match &data.kind {
            InstKind::Phi {
                incoming, shadow, ..
            } => self.phi(facts, b, incoming, *shadow, n),
            InstKind::Binary {
                op: bop,
                flags,
                lhs,
                rhs,
                ..
            } => {
                let (x, y) = (op(*lhs), op(*rhs));
                let r = self.binary(*bop, x, y, *lhs, *rhs, n);
                flagged(r, has_poison_flags(*flags), &[x, y], n)
            }
            InstKind::ICmp { pred, lhs, rhs, .. } => {
                if facts.may_be_stack(*lhs) || facts.may_be_stack(*rhs) {
                    return basic_result();
                }
                let bits = sa_bits(self.module, self.body, *lhs).unwrap_or(0);
                if bits == 0 {
                    return basic_result();
                }
                self.icmp(*pred, op(*lhs), op(*rhs), bits)
            }
            InstKind::Cast {
                op: cop,
                flags,
                arg,
                ..
            } => {
                if *cop == CastOp::PtrToInt && facts.may_be_stack(*arg) {
                    return basic_result();
                }
                let x = op(*arg);
                let Some(m) = sa_bits(self.module, self.body, *arg) else {
                    return basic_result();
                };
                let r = match cop {
                    CastOp::Trunc => x.normalized(n),
                    CastOp::ZExt => self.extend(x, m, false, n),
                    CastOp::SExt => self.extend(x, m, true, n),
                    CastOp::PtrToInt | CastOp::IntToPtr if m >= n => x.normalized(n),
                    CastOp::IntToPtr | CastOp::PtrToInt => self.extend(x, m, false, n),
                    CastOp::Bitcast | CastOp::AddrSpaceCast if m == n => x,
                    _ => return basic_result(),
                };
                flagged(r, flags.nuw || flags.nsw, &[x], n)
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                let (c, t, f) = (op(*cond), op(*if_true), op(*if_false));
                match c {
                    SaShape::Bottom => SaShape::Bottom,
                    c if c.is_uniform() => t.join(f),
                    _ => match (t.thread_align(), f.thread_align()) {
                        (Some(a), Some(a2)) => SaShape::varying(gcd(a, a2), n),
                        _ => SaShape::Bottom,
                    },
                }
            }
            InstKind::Freeze { arg, .. } => {
                // freeze turns an all-⊤ instance into zeros (pllvm picks 0): only a
                // uniform shape survives; a lane's multiple of a stays one.
                let x = op(*arg);
                match x {
                    SaShape::Strided { stride: 0, .. } | SaShape::Bottom => x,
                    _ => SaShape::varying(x.thread_align().unwrap_or(1), n),
                }
            }
            InstKind::Gep {
                inbounds,
                source_ty,
                base,
                indices,
            } => {
                let r = self.gep(facts, b, *source_ty, *base, indices);
                let mut ops = vec![op(*base)];
                ops.extend(indices.iter().map(|i| op(i.value)));
                flagged(r, *inbounds, &ops, n)
            }
            InstKind::Call { callee, args, .. } => {
                match call_kind(self.module, *callee, args.len()) {
                    // §10.4.3: A(thread_id()) = (1, 0); (1, W) in a chunk.
                    CallKind::ThreadId => self.ids.thread_id(),
                    _ => basic_result(),
                }
            }
            InstKind::Alloca { align, .. } => {
                // The object's shape (Fig. 6.11), aligned as the alloca asks.
                let a = u128::from(align.unwrap_or(1).max(1));
                match basic_result() {
                    s if s.is_uniform() => SaShape::uniform(a),
                    SaShape::Bottom => SaShape::Bottom,
                    _ => SaShape::varying(a, n),
                }
            }
            _ => basic_result(),
        };
        out.normalized(n)
    }

    /// [DA-PHI-D] / [DA-PHI-U] (Fig. 6.7) and [DA-SPHI-*] (Fig. 6.8) read in the
    /// sa-lattice (§10.4): in a join the lanes may hold values of different
    /// predecessors (each a multiple of its `threadalign`), elsewhere the join ⊔ of
    /// the incoming shapes.
    fn phi(
        &self,
        facts: &dyn DaState,
        b: Block,
        incoming: &[(Value, Block)],
        shadow: Option<Value>,
        n: u32,
    ) -> SaShape {
        let joined = facts.joined(b) || (shadow.is_some() && facts.control_divergent(b));
        let shapes: Vec<SaShape> = incoming
            .iter()
            .map(|&(v, q)| self.operand(facts, q, v))
            .collect();
        if joined {
            let mut all = shapes;
            if let Some(s) = shadow {
                all.push(self.operand(facts, b, s));
            }
            let aligns: Vec<u128> = all.iter().filter_map(|s| s.thread_align()).collect();
            if aligns.is_empty() {
                return SaShape::Bottom;
            }
            return SaShape::varying(aligns.into_iter().fold(0, gcd), n);
        }
        shapes.into_iter().fold(SaShape::Bottom, SaShape::join)
    }

    /// Integer binary operators: Fig. 10.9 (`add`, `sub`, `mul`), Fig. 10.10
    /// (division, by powers of two), Fig. 10.14 (`shl`), §10.4.5 (`or`), and the
    /// same reasoning for `and`, `xor`, `lshr`, `ashr`, `urem`.
    fn binary(&self, op: BinOp, x: SaShape, y: SaShape, lhs: Value, rhs: Value, n: u32) -> SaShape {
        if x == SaShape::Bottom || y == SaShape::Bottom {
            return SaShape::Bottom;
        }
        match op {
            BinOp::Add => add(x, y, n),
            BinOp::Sub => add(x, neg(y), n),
            BinOp::Mul => match (self.constval(lhs), self.constval(rhs)) {
                (Some(c), _) => mul_const(c, y, n),
                (_, Some(c)) => mul_const(c, x, n),
                _ => mul(x, y, n),
            },
            BinOp::Shl => match self.constval(rhs) {
                Some(c) if (0..i128::from(n)).contains(&c) => {
                    mul_const(signed_rep(1i128 << c, n), x, n)
                }
                Some(_) => SaShape::from_basic(x.to_basic().join(y.to_basic())),
                // Fig. 10.14 (corrected): y may be 0, so x's alignment is all.
                None => {
                    let a = x.thread_align().unwrap_or(1);
                    if x.is_uniform() && y.is_uniform() {
                        SaShape::uniform(a)
                    } else {
                        SaShape::varying(a, n)
                    }
                }
            },
            BinOp::LShr | BinOp::AShr | BinOp::UDiv | BinOp::SDiv => {
                self.shift_right(op, x, y, rhs, n)
            }
            BinOp::URem => match self.constval(rhs) {
                Some(c) if c > 0 && (c as u128).is_power_of_two() => self.and_const(x, c - 1, n),
                _ => generic(x, y, n),
            },
            BinOp::And => match (self.constval(lhs), self.constval(rhs)) {
                (_, Some(c)) => self.and_const(x, c, n),
                (Some(c), _) => self.and_const(y, c, n),
                _ => bit_shape(x, y, n, u32::max),
            },
            BinOp::Or | BinOp::Xor => match (self.constval(lhs), self.constval(rhs)) {
                (_, Some(c)) => or_const(x, c, n).unwrap_or_else(|| bit_shape(x, y, n, u32::min)),
                (Some(c), _) => or_const(y, c, n).unwrap_or_else(|| bit_shape(x, y, n, u32::min)),
                _ => bit_shape(x, y, n, u32::min),
            },
            _ => generic(x, y, n),
        }
    }

    /// `lshr`, `ashr` by a constant `c`, and `udiv`, `sdiv` by a constant power of
    /// two (Fig. 10.10 restricted to exact shifts, see the module notes): the base
    /// and the stride must be multiples of 2^c and the lanes inside one aligned
    /// block, so that the shift divides each lane exactly.
    fn shift_right(&self, op: BinOp, x: SaShape, y: SaShape, rhs: Value, n: u32) -> SaShape {
        let Some(c) = self.constval(rhs) else {
            return generic(x, y, n);
        };
        let (k, negate) = match op {
            BinOp::LShr | BinOp::AShr => match u32::try_from(c) {
                Ok(k) if k < n => (k, false),
                _ => return generic(x, y, n),
            },
            _ => {
                let unsigned = (c as u128) & (two_to(n) - 1);
                let signed = signed_rep(c, n);
                if op == BinOp::UDiv && unsigned.is_power_of_two() {
                    (unsigned.trailing_zeros(), false)
                } else if op == BinOp::SDiv
                    && signed != 0
                    && signed.unsigned_abs().is_power_of_two()
                {
                    (signed.unsigned_abs().trailing_zeros(), signed < 0)
                } else {
                    return generic(x, y, n);
                }
            }
        };
        let d = two_to(k);
        let r = match x {
            SaShape::Strided { stride, align } => {
                let g = pow2(align, n).min(two_to(n - 1));
                let exact = (stride.unsigned_abs() % d == 0) && g.is_multiple_of(d);
                if stride == 0 && g.is_multiple_of(d) {
                    SaShape::uniform(g / d)
                } else if stride == 0 {
                    SaShape::uniform(1)
                } else if op != BinOp::SDiv && g.is_multiple_of(d) && self.in_block(stride, d) {
                    // Every lane's offset s·t stays below 2^c: rounding down drops
                    // it (§10.3: i / 4 of i : (1, 4) is uniform when W divides 4).
                    // `sdiv` rounds towards zero, which a negative base breaks.
                    SaShape::uniform(g / d)
                } else if exact && self.in_block(stride, g) {
                    SaShape::Strided {
                        stride: stride / (d as i128),
                        align: g / d,
                    }
                } else {
                    let ta = pow2(x.thread_align().unwrap_or(1), n);
                    SaShape::varying(if ta.is_multiple_of(d) { ta / d } else { 1 }, n)
                }
            }
            SaShape::Varying { align } => {
                let ta = pow2(align, n).min(two_to(n - 1));
                SaShape::varying(if ta.is_multiple_of(d) { ta / d } else { 1 }, n)
            }
            SaShape::Bottom => SaShape::Bottom,
        };
        if negate { neg(r) } else { r }
    }

    /// `and x c`: a low mask `2^k - 1` of a value whose base is a multiple of 2^k
    /// and whose lanes stay below 2^k keeps `s·t` exactly (`(s, 0)`); otherwise
    /// the result is a multiple of the larger power of two of `x` and `c`.
    fn and_const(&self, x: SaShape, c: i128, n: u32) -> SaShape {
        let cu = (c as u128) & (two_to(n) - 1);
        if let SaShape::Strided { stride, align } = x {
            let low = cu.wrapping_add(1);
            if cu != 0
                && low.is_power_of_two()
                && pow2(align, n).is_multiple_of(low)
                && self.in_block(stride, low)
            {
                return SaShape::Strided { stride, align: 0 };
            }
        }
        let cshape = SaShape::uniform(cu);
        bit_shape(x, cshape, n, u32::max)
    }

    /// `icmp` (Fig. 10.12, corrected as the module notes say).
    fn icmp(&self, pred: ICmpPred, x: SaShape, y: SaShape, n: u32) -> SaShape {
        let (
            SaShape::Strided {
                stride: s,
                align: a,
            },
            SaShape::Strided {
                stride: s2,
                align: a2,
            },
        ) = (x, y)
        else {
            return match (x, y) {
                (SaShape::Bottom, _) | (_, SaShape::Bottom) => SaShape::Bottom,
                _ => SaShape::Varying { align: 1 },
            };
        };
        if s == s2 && matches!(pred, ICmpPred::Eq | ICmpPred::Ne) {
            return SaShape::uniform(1);
        }
        // Both exactly known (a = a' = 0): evaluate every lane.
        if a == 0
            && a2 == 0
            && let Some(w) = self.ids.width()
        {
            let mask = two_to(n) - 1;
            let lane = |s: i128, t: u32| (s as u128).wrapping_mul(u128::from(t)) & mask;
            let results: Vec<bool> = (0..w)
                .map(|t| compare(pred, lane(s, t), lane(s2, t), n))
                .collect();
            return if results.windows(2).all(|p| p[0] == p[1]) {
                SaShape::uniform(1)
            } else {
                SaShape::Varying { align: 1 }
            };
        }
        if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) {
            return SaShape::Varying { align: 1 };
        }
        let g = pow2(gcd(a, a2), n).min(two_to(n - 1));
        let uniform = self.in_block(s, g)
            && self.in_block(s2, g)
            && (s == s2
                || (s > s2
                    && matches!(
                        pred,
                        ICmpPred::Sge | ICmpPred::Uge | ICmpPred::Slt | ICmpPred::Ult
                    ))
                || (s < s2
                    && matches!(
                        pred,
                        ICmpPred::Sle | ICmpPred::Ule | ICmpPred::Sgt | ICmpPred::Ugt
                    )));
        if uniform {
            SaShape::uniform(1)
        } else {
            SaShape::Varying { align: 1 }
        }
    }

    /// `zext` / `sext` from `m` to `n` bits: a strided value whose lanes stay in one
    /// aligned block (no wrap at 2^m, or at 2^(m-1) for `sext`) extends to the
    /// same stride; otherwise each lane keeps its power of two.
    fn extend(&self, x: SaShape, m: u32, signed: bool, n: u32) -> SaShape {
        let cap = if signed {
            two_to(m.saturating_sub(1))
        } else {
            two_to(m)
        };
        match x {
            SaShape::Bottom => SaShape::Bottom,
            SaShape::Strided { stride, align } => {
                let g = pow2(align, m).min(cap);
                if stride == 0 {
                    SaShape::uniform(if align == 0 { 0 } else { g })
                } else if self.in_block(stride, g) {
                    // An exact base (a = 0) extends to the exact base 0.
                    SaShape::Strided {
                        stride,
                        align: if align == 0 { 0 } else { g },
                    }
                } else {
                    SaShape::varying(pow2(x.thread_align().unwrap_or(1), m), n)
                }
            }
            SaShape::Varying { align } => SaShape::varying(pow2(align, m), n),
        }
    }

    /// `getelementptr` (§10.4.6): the address spelled out as `base + Σ size·index`
    /// with the `add` and `mul` transformers; indices are sign-extended to 64 bits
    /// as LLVM does (`sext`), struct fields add their constant offset.
    fn gep(
        &self,
        facts: &dyn DaState,
        b: Block,
        source_ty: Ty,
        base: Value,
        indices: &[GepIndex],
    ) -> SaShape {
        let types = &self.module.types;
        let mut acc = self.operand(facts, b, base);
        let mut current = source_ty;
        for (k, index) in indices.iter().enumerate() {
            let idx = self.operand(facts, b, index.value);
            let m = sa_bits(self.module, self.body, index.value).unwrap_or(64);
            let idx64 = if m < 64 {
                self.extend(idx, m, true, 64)
            } else {
                idx.normalized(64)
            };
            let size = if k == 0 {
                types.size_of(current)
            } else {
                match types.get(current).clone() {
                    TypeData::Array(_, elem) => {
                        current = elem;
                        types.size_of(elem)
                    }
                    TypeData::Struct { fields, .. } => {
                        let (offsets, _) = types.struct_layout(current);
                        let Some(f) = self
                            .constval(index.value)
                            .and_then(|c| usize::try_from(c).ok())
                        else {
                            return SaShape::Varying { align: 1 };
                        };
                        let (Some(&off), Some(&field)) = (offsets.get(f), fields.get(f)) else {
                            return SaShape::Varying { align: 1 };
                        };
                        current = field;
                        acc = add(acc, SaShape::uniform(u128::from(off)), 64);
                        continue;
                    }
                    _ => return SaShape::Varying { align: 1 },
                }
            };
            acc = add(acc, mul_const(i128::from(size), idx64, 64), 64);
        }
        acc
    }
}

/// Whether an instruction's flags can make some lanes ⊤.
fn has_poison_flags(flags: IntFlags) -> bool {
    flags.nuw || flags.nsw || flags.exact || flags.disjoint
}

/// A strided result of an operation that may make some lanes ⊤ (its flags) from
/// non-uniform operands is only varying: a strided shape needs all lanes or none ⊤.
fn flagged(r: SaShape, poison: bool, operands: &[SaShape], n: u32) -> SaShape {
    let non_uniform = operands
        .iter()
        .any(|o| !o.is_uniform() && *o != SaShape::Bottom);
    match r {
        SaShape::Strided { .. } if poison && non_uniform => {
            SaShape::varying(r.thread_align().unwrap_or(1), n)
        }
        r => r,
    }
}

/// `⟦add x y⟧#` (Fig. 10.9).
pub(crate) fn add(x: SaShape, y: SaShape, n: u32) -> SaShape {
    use SaShape::{Bottom, Strided, Varying};
    match (x, y) {
        (Bottom, _) | (_, Bottom) => Bottom,
        (
            Strided { stride, align },
            Strided {
                stride: s2,
                align: a2,
            },
        ) => Strided {
            stride: signed_rep(stride + s2, n),
            align: gcd(align, a2),
        },
        (Strided { stride, align }, Varying { align: a })
        | (Varying { align: a }, Strided { stride, align }) => {
            SaShape::varying(gcd(gcd(stride.unsigned_abs(), align), a), n)
        }
        (Varying { align }, Varying { align: a2 }) => SaShape::varying(gcd(align, a2), n),
    }
}

/// `⟦-y⟧#` (Fig. 10.9).
pub(crate) fn neg(y: SaShape) -> SaShape {
    match y {
        SaShape::Strided { stride, align } => SaShape::Strided {
            stride: -stride,
            align,
        },
        other => other,
    }
}

/// `⟦mul c y⟧#` for a constant `c` (Fig. 10.9, first two cases).
pub(crate) fn mul_const(c: i128, y: SaShape, n: u32) -> SaShape {
    match y {
        SaShape::Bottom => SaShape::Bottom,
        SaShape::Varying { align } => SaShape::varying(mul_align(c.unsigned_abs(), align, n), n),
        SaShape::Strided { stride, align } => SaShape::Strided {
            stride: signed_rep(c.wrapping_mul(stride), n),
            align: mul_align(c.unsigned_abs(), align, n),
        },
    }
    .normalized(n)
}

/// `⟦mul x y⟧#` (Fig. 10.9, last two cases).
pub(crate) fn mul(x: SaShape, y: SaShape, n: u32) -> SaShape {
    match (x, y) {
        (
            SaShape::Strided { stride: 0, align },
            SaShape::Strided {
                stride: 0,
                align: a2,
            },
        ) => SaShape::uniform(mul_align(align, a2, n)),
        _ => match (x.thread_align(), y.thread_align()) {
            (Some(a), Some(a2)) => SaShape::varying(mul_align(a, a2, n), n),
            _ => SaShape::Bottom,
        },
    }
}

/// `or x c` (§10.4.5): when the lowest `n_c` bits of every lane are 0 (2^{n_c}
/// divides `gcd(s, a)`) and `c < 2^{n_c}`, `or` (and `xor`) is `add x c`.
fn or_const(x: SaShape, c: i128, n: u32) -> Option<SaShape> {
    let cu = (c as u128) & (two_to(n) - 1);
    if cu == 0 {
        return Some(x);
    }
    let n_c = 128 - cu.leading_zeros();
    let ta = x.thread_align()?;
    pow2(ta, n)
        .is_multiple_of(two_to(n_c))
        .then(|| add(x, SaShape::uniform(cu), n))
}

/// A bit operation's shape from the powers of two of its operands: `pick` is
/// `max` for `and` (a zero low bit of either operand is zero in the result) and
/// `min` for `or` / `xor`; uniform when both operands are.
fn bit_shape(x: SaShape, y: SaShape, n: u32, pick: fn(u32, u32) -> u32) -> SaShape {
    let (Some(a), Some(b)) = (x.thread_align(), y.thread_align()) else {
        return SaShape::Bottom;
    };
    let tz = |v: u128| pow2(v, n).trailing_zeros();
    let g = two_to(pick(tz(a), tz(b)).min(n));
    if x.is_uniform() && y.is_uniform() {
        SaShape::uniform(g).normalized(n)
    } else {
        SaShape::varying(g, n)
    }
}

/// The basic rule ([DA-UARITH] / [DA-DARITH]) in the sa-lattice.
pub(crate) fn generic(x: SaShape, y: SaShape, n: u32) -> SaShape {
    let _ = n;
    SaShape::from_basic(x.to_basic().join(y.to_basic()))
}

/// `icmp pred a b` on `n`-bit patterns.
fn compare(pred: ICmpPred, a: u128, b: u128, n: u32) -> bool {
    let s = |v: u128| signed_rep(v as i128, n);
    match pred {
        ICmpPred::Eq => a == b,
        ICmpPred::Ne => a != b,
        ICmpPred::Ugt => a > b,
        ICmpPred::Uge => a >= b,
        ICmpPred::Ult => a < b,
        ICmpPred::Ule => a <= b,
        ICmpPred::Sgt => s(a) > s(b),
        ICmpPred::Sge => s(a) >= s(b),
        ICmpPred::Slt => s(a) < s(b),
        ICmpPred::Sle => s(a) <= s(b),
    }
}

#[cfg(test)]
mod tests {
    use super::SaShape::{self, Bottom, Strided, Varying};
    use super::ThreadIds;
    use crate::result::InitShapes;
    use crate::uniformity::analyze_sa;
    use pllvm_semantics::text::parse_module;

    /// Analyses `body` (the parameters `%n`, `%m` uniform, `%v` varying) for at most
    /// `width` lanes and compares the sa-shape of each named value with `expect`.
    fn transfer(width: Option<u32>, body: &str, expect: &[(&str, &str)]) {
        transfer_in(ThreadIds::Array(width), body, expect);
    }

    /// [`transfer`] for the thread ids `ids` describes.
    fn transfer_in(ids: ThreadIds, body: &str, expect: &[(&str, &str)]) {
        let src = format!(
            "declare i32 @pllvm.thread_id()\ndefine i32 @f(i32 %n, i32 %m, i32 %v) {{\nA:\n  %t = call i32 @pllvm.thread_id()\n{body}\n  ret i32 0\n}}\n"
        );
        let (module, _) = match parse_module(&src) {
            Ok(m) => m,
            Err(e) => panic!("{e:?}\n{src}"),
        };
        let Some(func) = module.first_definition() else {
            panic!("no function")
        };
        let data = &module.functions[func];
        let init = match InitShapes::with_uniform(data, &["n".into(), "m".into()]) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        };
        let r = match analyze_sa(&module, func, &init, ids) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let Some(b) = data.body.as_ref() else {
            panic!("no body")
        };
        for (name, word) in expect {
            let v = b
                .values
                .iter()
                .find(|(v, _)| b.value_name(*v) == Some(*name))
                .map(|(v, _)| v);
            let got = v.and_then(|v| r.strides.get(&v)).map(|s| s.word());
            assert_eq!(got.as_deref(), Some(*word), "%{name} in\n{body}");
        }
    }

    #[test]
    fn arithmetic_follows_fig_10_9() {
        transfer(
            None,
            "  %a = mul i32 %t, 4\n  %b = add i32 %a, %n\n  %c = sub i32 %b, %a\n  %d = mul i32 %v, 6\n  %e = add i32 %d, %a",
            &[
                ("a", "stride(4) align(0)"),
                ("b", "stride(4) align(1)"),
                ("c", "uniform"),
                ("d", "varying align(6)"),
                ("e", "varying align(2)"),
            ],
        );
    }

    #[test]
    fn comparisons_need_the_width() {
        let body = "  %x = shl i32 %n, 3\n  %y = add i32 %x, %t\n  %c = icmp uge i32 %y, %x\n  %d = icmp ugt i32 %y, %x\n  %e = icmp eq i32 %y, %t\n  %f = icmp eq i32 %y, %x";
        // y - t = x: equal strides, uniform equality; y vs x: lane 0 equal only.
        transfer(
            Some(8),
            body,
            &[
                ("c", "uniform"),
                ("d", "varying"),
                ("e", "uniform"),
                ("f", "varying"),
            ],
        );
        transfer(Some(9), body, &[("c", "varying")]);
        transfer(None, body, &[("c", "varying")]);
    }

    /// In a chunk of W lanes (the native backend's), the thread id is `c·W + t`:
    /// `(1, W)`. With W a power of two it extends with its stride (clang's
    /// `A[zext(thread_id)]` is contiguous), the chunk's index `t >> log2 W` and
    /// `t < W` are uniform (all lanes of a chunk or none are below W), and
    /// `t & (W - 1)` is the lane id exactly; with W = 12 the lanes may straddle
    /// 2^32 or 2^31, so the extensions are varying.
    #[test]
    fn chunks_start_at_multiples_of_w() {
        let body = "  %z = zext i32 %t to i64\n  %s = sext i32 %t to i64\n  %c = lshr i32 %t, 4\n  %l = and i32 %t, 15\n  %k = icmp ult i32 %t, 16";
        transfer_in(
            ThreadIds::Chunk(16),
            body,
            &[
                ("t", "stride(1) align(16)"),
                ("z", "stride(1) align(16)"),
                ("s", "stride(1) align(16)"),
                ("c", "uniform"),
                ("l", "stride(1) align(0)"),
                ("k", "uniform"),
            ],
        );
        transfer_in(
            ThreadIds::Array(Some(16)),
            body,
            &[
                ("t", "stride(1) align(0)"),
                ("z", "stride(1) align(0)"),
                ("k", "uniform"),
            ],
        );
        transfer_in(
            ThreadIds::Chunk(12),
            body,
            &[("t", "stride(1) align(12)"), ("z", "varying")],
        );
    }

    #[test]
    fn flags_and_freeze_keep_all_or_no_lanes_undefined() {
        transfer(
            Some(4),
            "  %a = add nuw i32 %t, %n\n  %b = add i32 %t, %n\n  %c = freeze i32 %b\n  %d = add nuw i32 %n, 1",
            &[
                ("a", "varying"),
                ("b", "stride(1) align(1)"),
                ("c", "varying"),
                ("d", "uniform"),
            ],
        );
    }

    fn check(a: SaShape, b: SaShape, expect: SaShape) {
        assert_eq!(a.join(b), expect, "{a} ⊔ {b}");
        assert_eq!(b.join(a), expect, "{b} ⊔ {a}");
        assert!(a.leq(expect) && b.leq(expect));
    }

    #[test]
    fn join_follows_fig_10_6() {
        let s = |stride, align| Strided { stride, align };
        check(Bottom, s(1, 4), s(1, 4));
        check(s(1, 8), s(1, 12), s(1, 4));
        // (s, 0) is the exact vector: below every (s, a).
        check(s(2, 0), s(2, 6), s(2, 6));
        check(s(1, 8), s(2, 8), Varying { align: 1 });
        check(s(4, 8), s(0, 16), Varying { align: 4 });
        check(s(4, 8), Varying { align: 2 }, Varying { align: 2 });
        check(
            Varying { align: 12 },
            Varying { align: 8 },
            Varying { align: 4 },
        );
    }

    #[test]
    fn words_round_trip() {
        for s in [
            Bottom,
            SaShape::uniform(1),
            SaShape::uniform(36),
            Strided {
                stride: -2,
                align: 8,
            },
            Strided {
                stride: 1,
                align: 0,
            },
            Varying { align: 1 },
            Varying { align: 4 },
        ] {
            assert_eq!(SaShape::parse(&s.word()), Some(s), "{s}");
        }
        assert_eq!(
            SaShape::parse("stride 4 align 16"),
            Some(Strided {
                stride: 4,
                align: 16
            })
        );
        assert_eq!(SaShape::parse("varying align 0"), None);
        assert_eq!(SaShape::parse("sometimes"), None);
    }

    #[test]
    fn admits_is_gamma_modulo_2_to_the_n() {
        let tid = Strided {
            stride: 1,
            align: 0,
        };
        assert!(tid.admits(32, &[(0, Some(0)), (1, Some(1)), (3, Some(3))]));
        assert!(!tid.admits(32, &[(0, Some(1)), (1, Some(2))]));
        // (1, 8): lane 0 a multiple of 8, modulo 2^8 here.
        let s18 = Strided {
            stride: 1,
            align: 8,
        };
        assert!(s18.admits(8, &[(1, Some(17)), (2, Some(18))]));
        assert!(!s18.admits(8, &[(1, Some(18)), (2, Some(19))]));
        // Wrapping: 255 + 1 = 0 modulo 2^8.
        assert!(s18.admits(8, &[(0, Some(248)), (8, Some(0))]));
        // (0, 36) modulo 2^32 only says "a multiple of 4".
        assert!(SaShape::uniform(36).admits(32, &[(0, Some(12)), (1, Some(12))]));
        assert!(!SaShape::uniform(36).admits(32, &[(0, Some(6))]));
        // All-⊤ instances are admitted; mixed ones are not.
        assert!(tid.admits(32, &[(0, None), (1, None)]));
        assert!(!tid.admits(32, &[(0, Some(0)), (1, None)]));
        assert!(Varying { align: 4 }.admits(32, &[(0, Some(8)), (1, None)]));
        assert!(!Varying { align: 4 }.admits(32, &[(0, Some(6))]));
    }
}
