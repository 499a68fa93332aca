//! Division of a non-negative dividend by a power of two (`--pass nonneg-div`):
//! `sdiv x, 2^k` becomes `ashr x, k` and `srem x, 2^k` becomes
//! `and x, 2^k - 1` where `x` is non-negative in every lane that runs the
//! division, as the branches that lead there say.
//!
//! A signed division by 2^k rounds toward zero and an arithmetic shift toward
//! minus infinity: they agree exactly on the non-negative dividends, and there
//! a signed remainder is the low k bits. Widened, the difference matters: on
//! AVX2 a `<W x i64>` `sdiv` by 2 is five instructions per register (the
//! shift that rounds toward zero plus an emulated 64-bit arithmetic shift),
//! on AVX-512 three, where `ashr` is one. This is what LLVM's
//! CorrelatedValuePropagation and InstCombine do to `clang -O2` output before a
//! vectorizer sees it (an `sdiv` of operands known non-negative becomes `udiv`,
//! then a shift); `pllvm compile` runs no `opt` (docs/native.md), so the facts the
//! rewrite needs are gathered here, from the scalar program, before the
//! transforms replace its branches by masks.
//!
//! The facts are per lane, so they hold under lock step too: a lane runs a
//! block only after taking, itself, an edge into it ([W-TMN-BR] picks each
//! lane's successor from its own condition), and a phi reads the value the lane
//! had when it left the predecessor (Fig. 4.8). A lane that is not active
//! writes nothing under FREEZING and ⊤ under OBLIVIOUS (Def. 11), and
//! `sdiv ⊤, 2^k` and `ashr ⊤, k` are both ⊤. So a division whose dividend is
//! non-negative in every scalar execution that reaches it computes the same
//! value as the shift in every lane of every P-LLVM execution.
//!
//! A value `x` is known non-negative ([`NonNegative`]):
//! - by its definition: a constant with its sign bit clear, `zext` from a
//!   narrower type, `lshr` by a constant of at least 1, `and` with a
//!   non-negative operand, `udiv` by a constant of at least 2, `select` of two
//!   non-negative values, `add nsw` / `mul nsw` of two non-negative values (a
//!   signed overflow is ⊤), `sdiv` / `ashr` of a non-negative value by a
//!   non-negative constant, and a phi whose every incoming value is
//!   non-negative on its edge (assumed while its own incoming values are
//!   checked: a phi's value at any moment comes from values computed before it,
//!   so this is an induction over the execution);
//! - on an edge `p → s`: when the condition of `p`'s `br` is an `icmp` of `x`
//!   with a constant that, on this edge's polarity, bounds `x` from below by 0
//!   or more (`sgt C` with `C ≥ -1`, `sge C` with `C ≥ 0`, `eq C` with `C ≥ 0`,
//!   the false edge of `slt C` / `sle C` / `ne C` likewise, the operands either
//!   way round) or keeps it under 2^(n-1) unsigned (`ult C` with
//!   `C ≤ 2^(n-1)`, `ule C` with `C < 2^(n-1)`); or when `x` is known
//!   non-negative at `p`;
//! - at a block: by its definition, or on the edge into any block of the chain
//!   of unique predecessors that leads to it (each of those edges is taken
//!   before the block runs, with no other way in).
//!
//! Only scalar integer divisions by a positive power of two (2^0 included)
//! are rewritten, and no `total` one (it runs in passive lanes too, on values
//! no branch bounded; a `total` result is not known non-negative either); the `exact`
//! flag stays (`ashr exact` and `sdiv exact` are ⊤ on the same non-negative dividends).
//! Predicated input (a block predicate, a `total` command with a side effect:
//! [`crate::prepare::require_unpredicated`]) is left as it is, with a note: a predicate
//! may make a lane active in a block without its having taken the branches the facts
//! come from. The pass comes first in a pipeline, while the branches it reads are
//! there.

use crate::error::TransformError;
use crate::pass::PassContext;
use crate::prepare;
use num_bigint::BigUint;
use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{
    BinOp, Block, Body, CastOp, ConstData, FuncId, ICmpPred, Inst, InstKind, IntFlags, Module,
    Terminator, Value, ValueDef,
};
use pllvm_semantics::types::TypeTable;
use std::collections::{HashMap, HashSet};

/// Rewrites every `sdiv` / `srem` of `func` by a power of two whose dividend is
/// known non-negative where it runs; one note per rewritten instruction.
pub fn nonneg_div(
    module: &Module,
    func: FuncId,
    cx: &PassContext<'_>,
) -> Result<(Module, Vec<String>), TransformError> {
    let pass = cx.pass.name();
    let body = prepare::body_of(module, func, pass)?;
    if let Err(e) = prepare::require_unpredicated(module, func, pass) {
        // A block predicate or a `total` command runs lanes that did not take
        // the branches the facts come from: leave the program as it is (the
        // transforms after this pass refuse such input themselves).
        let why = e.message.split(';').next().unwrap_or_default().to_string();
        return Ok((module.clone(), vec![format!("left as it is: {why}")]));
    }
    let facts = NonNegative::new(body, &module.types);
    let mut rewrites = Vec::new();
    for &b in &body.layout {
        for &i in &body.blocks[b].body {
            if body.insts[i].total {
                // It runs in passive lanes too, on values no branch bounded.
                continue;
            }
            let InstKind::Binary {
                op: op @ (BinOp::SDiv | BinOp::SRem),
                flags,
                ty,
                lhs,
                rhs,
            } = &body.insts[i].kind
            else {
                continue;
            };
            let Some(width) = module.types.int_width(*ty) else {
                continue;
            };
            let Some(k) = body.as_const(*rhs).and_then(|c| power_of_two(c, width)) else {
                continue;
            };
            if facts.at_block(*lhs, b) {
                rewrites.push((b, i, *op, *flags, *ty, *lhs, k));
            }
        }
    }
    let mut out = module.clone();
    let mut notes = Vec::new();
    let body = out.functions[func]
        .body
        .as_mut()
        .expect("body_of checked the body");
    for (b, i, op, flags, ty, lhs, k) in rewrites {
        let (kind, what) = match op {
            BinOp::SDiv => {
                let shift = body.add_const(ty, ConstData::Int(BigUint::from(k)));
                let kind = InstKind::Binary {
                    op: BinOp::AShr,
                    flags: IntFlags {
                        exact: flags.exact,
                        ..IntFlags::default()
                    },
                    ty,
                    lhs,
                    rhs: shift,
                };
                (kind, format!("ashr by {k}"))
            }
            _ => {
                let low = (BigUint::from(1u8) << k) - 1u8;
                let text = low.to_string();
                let bits = body.add_const(ty, ConstData::Int(low));
                let kind = InstKind::Binary {
                    op: BinOp::And,
                    flags: IntFlags::default(),
                    ty,
                    lhs,
                    rhs: bits,
                };
                (kind, format!("and with {text}"))
            }
        };
        body.insts[i].kind = kind;
        let name = |v: Option<Value>| {
            v.and_then(|v| body.value_name(v))
                .map_or_else(|| "(unnamed)".to_string(), |n| format!("%{n}"))
        };
        notes.push(format!(
            "{} in %{}: {} by 2^{k} of {}, non-negative wherever it runs, becomes {what}",
            name(body.insts[i].result),
            body.blocks[b].name,
            if op == BinOp::SDiv { "sdiv" } else { "srem" },
            name(Some(lhs)),
        ));
    }
    if notes.is_empty() {
        notes.push("no sdiv or srem by a power of two with a dividend known non-negative".into());
    }
    Ok((out, notes))
}

/// `k` when the constant `c` of an `iN` is 2^k with its sign bit clear.
fn power_of_two(c: &ConstData, width: u32) -> Option<u64> {
    let ConstData::Int(n) = c else { return None };
    let k = n.trailing_zeros()?;
    (n.count_ones() == 1 && k + 1 < u64::from(width)).then_some(k)
}

/// The signed value of a constant, clamped to what the rules compare with:
/// `Some(v)` for `-1 ≤ v`, as `v + 1` (so 0 means -1), `None` below -1.
fn at_least_minus_one(c: &ConstData, width: u32) -> Option<BigUint> {
    let ConstData::Int(n) = c else { return None };
    let sign = BigUint::from(1u8) << (width - 1);
    let all = (BigUint::from(1u8) << width) - 1u8;
    if *n < sign {
        Some(n + 1u8)
    } else if *n == all {
        Some(BigUint::from(0u8))
    } else {
        None
    }
}

/// Which values are known non-negative, and where (see the module's list).
///
/// The facts by definition are the greatest fixpoint of the rules: every
/// integer result starts non-negative and loses the fact when its rule fails
/// under the current facts, its users being checked again (a worklist, so
/// each value is revisited only when an operand changes). What stays is
/// closed under the rules, which is the induction over the execution the
/// module's documentation describes: each value is computed from operands
/// computed before it, a phi from values of the edge it comes by.
pub struct NonNegative<'b> {
    body: &'b Body,
    types: &'b TypeTable,
    /// The CFG: each block's predecessors, one per edge.
    cfg: Cfg,
    /// The results known non-negative by their definitions.
    facts: HashSet<Value>,
}

impl<'b> NonNegative<'b> {
    /// The facts of `body`.
    pub fn new(body: &'b Body, types: &'b TypeTable) -> Self {
        let mut home = HashMap::new();
        for &b in &body.layout {
            for &i in &body.blocks[b].phis {
                home.insert(i, b);
            }
        }
        let mut facts = NonNegative {
            body,
            types,
            cfg: Cfg::new(body),
            facts: HashSet::new(),
        };
        let mut users: HashMap<Value, Vec<Value>> = HashMap::new();
        let mut work = Vec::new();
        for &b in &body.layout {
            for &i in body.blocks[b].phis.iter().chain(&body.blocks[b].body) {
                let Some(result) = body.insts[i].result else {
                    continue;
                };
                if types.int_width(body.values[result].ty).is_none() || body.insts[i].total {
                    continue;
                }
                for v in body.insts[i].kind.operands() {
                    users.entry(v).or_default().push(result);
                }
                facts.facts.insert(result);
                work.push(result);
            }
        }
        while let Some(v) = work.pop() {
            if facts.facts.contains(&v) && !facts.rule_holds(v, &home) {
                facts.facts.remove(&v);
                work.extend(users.get(&v).into_iter().flatten().copied());
            }
        }
        facts
    }

    /// Whether `x` is non-negative in every lane that runs block `at`.
    pub fn at_block(&self, x: Value, at: Block) -> bool {
        self.known(x) || self.on_the_way_to(x, at)
    }

    /// Whether `x` is known non-negative by its definition.
    fn known(&self, x: Value) -> bool {
        match &self.body.values[x].def {
            ValueDef::Const(c) => self.nonneg_const(x, c),
            ValueDef::Param(_) => false,
            ValueDef::Inst(_) => self.facts.contains(&x),
        }
    }

    /// Whether an edge on the chain of unique predecessors leading to `at`
    /// bounds `x` below by zero.
    fn on_the_way_to(&self, x: Value, at: Block) -> bool {
        let mut seen = HashSet::new();
        let mut cur = at;
        while seen.insert(cur) {
            match self.cfg.preds(cur) {
                &[p] => {
                    if self.edge_implies(p, cur, x) {
                        return true;
                    }
                    cur = p;
                }
                _ => return false,
            }
        }
        false
    }

    fn nonneg_const(&self, x: Value, c: &ConstData) -> bool {
        self.types
            .int_width(self.body.values[x].ty)
            .and_then(|w| at_least_minus_one(c, w))
            .is_some_and(|v| v >= BigUint::from(1u8))
    }

    /// The rule of `x`'s definition under the current facts.
    fn rule_holds(&self, x: Value, home: &HashMap<Inst, Block>) -> bool {
        let body = self.body;
        let Some(width) = self.types.int_width(body.values[x].ty) else {
            return false;
        };
        let const_at_least = |v: Value, m: u8| match body.as_const(v) {
            Some(c @ ConstData::Int(n)) => self.nonneg_const(v, c) && *n >= BigUint::from(m),
            _ => false,
        };
        let Some(inst) = body.def_inst(x) else {
            return false;
        };
        match &body.insts[inst].kind {
            InstKind::Cast {
                op: CastOp::ZExt,
                from,
                ..
            } => self.types.int_width(*from).is_some_and(|w| w < width),
            InstKind::Binary {
                op,
                flags,
                lhs,
                rhs,
                ..
            } => match op {
                BinOp::LShr => const_at_least(*rhs, 1),
                BinOp::UDiv => const_at_least(*rhs, 2),
                BinOp::And => self.known(*lhs) || self.known(*rhs),
                BinOp::Add | BinOp::Mul => flags.nsw && self.known(*lhs) && self.known(*rhs),
                BinOp::SDiv => const_at_least(*rhs, 1) && self.known(*lhs),
                BinOp::AShr | BinOp::SRem => self.known(*lhs),
                _ => false,
            },
            InstKind::Select {
                if_true, if_false, ..
            } => self.known(*if_true) && self.known(*if_false),
            InstKind::Phi {
                incoming,
                shadow: None,
                ..
            } => home.get(&inst).is_some_and(|&s| {
                incoming.iter().all(|&(v, p)| {
                    self.edge_implies(p, s, v) || self.known(v) || self.on_the_way_to(v, p)
                })
            }),
            _ => false,
        }
    }

    /// Whether the condition of the branch `p → s` bounds `x` below by zero.
    fn edge_implies(&self, p: Block, s: Block, x: Value) -> bool {
        let Terminator::CondBr {
            cond,
            if_true,
            if_false,
        } = &self.body.blocks[p].term
        else {
            return false;
        };
        if if_true == if_false {
            return false;
        }
        let taken = *if_true == s;
        let Some(i) = self.body.def_inst(*cond) else {
            return false;
        };
        let InstKind::ICmp { pred, ty, lhs, rhs } = &self.body.insts[i].kind else {
            return false;
        };
        let Some(width) = self.types.int_width(*ty) else {
            return false;
        };
        // x PRED c, with the predicate as it holds on this edge.
        let (pred, c) = if *lhs == x {
            (*pred, *rhs)
        } else if *rhs == x {
            (pred.swapped(), *lhs)
        } else {
            return false;
        };
        let pred = if taken { pred } else { pred.inverse() };
        let Some(c) = self.body.as_const(c) else {
            return false;
        };
        let ConstData::Int(n) = c else { return false };
        let plus_one = at_least_minus_one(c, width);
        let sign = BigUint::from(1u8) << (width - 1);
        match pred {
            // x > c ≥ -1
            ICmpPred::Sgt => plus_one.is_some(),
            // x ≥ c ≥ 0, x = c ≥ 0
            ICmpPred::Sge | ICmpPred::Eq => plus_one.is_some_and(|v| v >= BigUint::from(1u8)),
            // x <u c ≤ 2^(n-1)
            ICmpPred::Ult => *n <= sign,
            // x ≤u c < 2^(n-1)
            ICmpPred::Ule => *n < sign,
            _ => false,
        }
    }
}
