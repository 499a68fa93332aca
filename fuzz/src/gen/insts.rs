//! Commands of generated programs (thesis Fig. 4.2 `inst`, §4.9): operands drawn
//! from the scoped pool, arithmetic that cannot trap, in-bounds gathers and
//! disjoint scatters (§4.9.1), `mask()` and the horizontal builtins (Fig. 4.15),
//! and the branch conditions, switch scrutinees and trip bounds of the regions.

use super::builder::Builder;
use pllvm_semantics::ir::{BinOp, CastOp, FCmpPred, GepIndex, ICmpPred, InstKind, IntFlags, Value};
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use rand::Rng;

/// What a branch (or switch) decides on, for [`super::spec::Stats`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    ThreadId,
    Load,
    Uniform,
    Counter,
    Other,
}

/// The commands [`Builder::gen_inst`] chooses from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    IntBinary,
    ICmp,
    Select,
    IntCast,
    Freeze,
    FloatBinary,
    FNeg,
    FCmp,
    FloatCast,
    Load,
    Store,
    Horizontal,
    Mask,
}

impl Builder<'_> {
    // ---- types and constants ---------------------------------------------------

    /// A random integer type of the program's palette.
    pub(super) fn random_int_ty(&mut self) -> Ty {
        let k = self.rng.gen_range(0..self.int_types.len());
        self.int_types[k]
    }

    /// A random scalar type (integers more often than floats).
    pub(super) fn random_ty(&mut self) -> Ty {
        if !self.float_types.is_empty() && self.rng.gen_bool(0.2) {
            let k = self.rng.gen_range(0..self.float_types.len());
            self.float_types[k]
        } else {
            self.random_int_ty()
        }
    }

    /// A random constant of `ty`: mostly small, sometimes all ones or random bits.
    pub(super) fn random_const(&mut self, ty: Ty) -> Value {
        if self.module.types.is_float(ty) {
            let x = match self.rng.gen_range(0..8) {
                0 => 0.0,
                1 => -1.5,
                2 => 1e10,
                _ => f64::from(self.rng.gen_range(-40i32..40)) / 4.0,
            };
            return self.const_float(ty, x);
        }
        let bits = match self.rng.gen_range(0..8) {
            0 => u128::MAX,
            1 => self.rng.r#gen(),
            _ => self.rng.gen_range(0..16),
        };
        self.const_int(ty, bits)
    }

    /// An operand of type `ty` for a command of the current block: a pool value,
    /// another pool value converted, or a constant.
    pub(super) fn operand(&mut self, ty: Ty) -> Value {
        let same = self.pool_of(ty);
        let roll = self.rng.gen_range(0..10);
        if roll < 7 && !same.is_empty() {
            return same[self.rng.gen_range(0..same.len())];
        }
        if roll < 9 {
            let others: Vec<Value> = self
                .scopes
                .iter()
                .flatten()
                .copied()
                .filter(|&v| self.usable(v))
                .collect();
            if !others.is_empty() {
                let v = others[self.rng.gen_range(0..others.len())];
                return self.convert(v, ty);
            }
        }
        self.random_const(ty)
    }

    /// A value of type `ty` among `avail` (no new command), or a constant.
    pub(super) fn pick_existing(&mut self, ty: Ty, avail: &[Value]) -> Value {
        let same: Vec<Value> = avail
            .iter()
            .copied()
            .filter(|&v| self.ty(v) == ty)
            .collect();
        if !same.is_empty() && self.rng.gen_bool(0.85) {
            return same[self.rng.gen_range(0..same.len())];
        }
        self.random_const(ty)
    }

    /// Converts `v` to type `to` with casts that never make ⊤ (no float-to-int
    /// conversion but `bitcast`).
    pub(super) fn convert(&mut self, v: Value, to: Ty) -> Value {
        let from = self.ty(v);
        if from == to {
            return v;
        }
        let types = &self.module.types;
        match (types.get(from).clone(), types.get(to).clone()) {
            (TypeData::Int(a), TypeData::Int(b)) => {
                let op = if b < a {
                    CastOp::Trunc
                } else if self.rng.gen_bool(0.5) {
                    CastOp::ZExt
                } else {
                    CastOp::SExt
                };
                self.cast(op, v, to)
            }
            (TypeData::Int(_), TypeData::F32 | TypeData::F64) => {
                let op = if self.rng.gen_bool(0.5) {
                    CastOp::SiToFp
                } else {
                    CastOp::UiToFp
                };
                self.cast(op, v, to)
            }
            (TypeData::F32, TypeData::F64) => self.cast(CastOp::FpExt, v, to),
            (TypeData::F64, TypeData::F32) => self.cast(CastOp::FpTrunc, v, to),
            (TypeData::F32, _) => {
                let bits = self.cast(CastOp::Bitcast, v, TypeTable::I32);
                self.convert(bits, to)
            }
            (TypeData::F64, _) => {
                let bits = self.cast(CastOp::Bitcast, v, TypeTable::I64);
                self.convert(bits, to)
            }
            // Pointers never enter the pool; anything else becomes a constant.
            _ => self.random_const(to),
        }
    }

    fn cast(&mut self, op: CastOp, arg: Value, to: Ty) -> Value {
        let from = self.ty(arg);
        self.emit(
            InstKind::Cast {
                op,
                flags: IntFlags::default(),
                from,
                arg,
                to,
            },
            to,
            "cv",
            false,
        )
    }

    /// `op ty a, b` without flags.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        ty: Ty,
        lhs: Value,
        rhs: Value,
        stem: &str,
        total: bool,
    ) -> Value {
        self.emit(
            InstKind::Binary {
                op,
                flags: IntFlags::default(),
                ty,
                lhs,
                rhs,
            },
            ty,
            stem,
            total,
        )
    }

    /// `icmp pred ty a, b`.
    pub(super) fn icmp(&mut self, pred: ICmpPred, lhs: Value, rhs: Value, total: bool) -> Value {
        let ty = self.ty(lhs);
        self.emit(
            InstKind::ICmp { pred, ty, lhs, rhs },
            TypeTable::I1,
            "c",
            total,
        )
    }

    /// `getelementptr inbounds elem, ptr base, i64 idx` (never offered to the pool).
    pub(super) fn gep(&mut self, elem: Ty, base: Value, idx: Value) -> Value {
        self.emit(
            InstKind::Gep {
                inbounds: true,
                source_ty: elem,
                base,
                indices: vec![GepIndex { value: idx }],
            },
            TypeTable::PTR,
            "p",
            false,
        )
    }

    fn random_pred(&mut self) -> ICmpPred {
        ICmpPred::ALL[self.rng.gen_range(0..ICmpPred::ALL.len())]
    }

    // ---- commands ----------------------------------------------------------------

    /// One random command in the current block, its result offered to the pool.
    pub(super) fn gen_inst(&mut self) {
        let mut menu: Vec<(u32, Kind)> = vec![
            (30, Kind::IntBinary),
            (8, Kind::ICmp),
            (5, Kind::Select),
            (6, Kind::IntCast),
            (2, Kind::Freeze),
        ];
        if self.cfg.floats {
            menu.extend([
                (6, Kind::FloatBinary),
                (2, Kind::FNeg),
                (3, Kind::FCmp),
                (3, Kind::FloatCast),
            ]);
        }
        if self.cfg.memory {
            menu.extend([(7, Kind::Load), (6, Kind::Store)]);
        }
        if self.cfg.uses_horizontal() {
            menu.push((4, Kind::Horizontal));
        }
        if self.cfg.uses_mask() {
            menu.push((3, Kind::Mask));
        }
        let total_weight: u32 = menu.iter().map(|(w, _)| w).sum();
        let mut roll = self.rng.gen_range(0..total_weight);
        let mut kind = Kind::IntBinary;
        for (w, k) in menu {
            if roll < w {
                kind = k;
                break;
            }
            roll -= w;
        }
        let total = self.cfg.total && self.rng.gen_bool(0.15);
        let result = match kind {
            Kind::IntBinary => Some(self.gen_int_binary(total)),
            Kind::ICmp => {
                let ty = self.random_int_ty();
                let (a, b) = (self.operand(ty), self.operand(ty));
                let pred = self.random_pred();
                Some(self.icmp(pred, a, b, total))
            }
            Kind::Select => {
                let ty = self.random_ty();
                let cond = self.operand(TypeTable::I1);
                let (if_true, if_false) = (self.operand(ty), self.operand(ty));
                Some(self.emit(
                    InstKind::Select {
                        ty,
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                    "sel",
                    total,
                ))
            }
            Kind::IntCast => {
                let (from, to) = (self.random_int_ty(), self.random_int_ty());
                let v = self.operand(from);
                Some(self.convert(v, to))
            }
            Kind::Freeze => {
                let ty = self.random_ty();
                let arg = self.operand(ty);
                Some(self.emit(InstKind::Freeze { ty, arg }, ty, "fr", total))
            }
            Kind::FloatBinary => {
                let ty = self.float_types[self.rng.gen_range(0..self.float_types.len())];
                let ops = [
                    BinOp::FAdd,
                    BinOp::FSub,
                    BinOp::FMul,
                    BinOp::FDiv,
                    BinOp::FRem,
                ];
                let op = ops[self.rng.gen_range(0..ops.len())];
                let (a, b) = (self.operand(ty), self.operand(ty));
                Some(self.binary(op, ty, a, b, "f", total))
            }
            Kind::FNeg => {
                let ty = self.float_types[self.rng.gen_range(0..self.float_types.len())];
                let arg = self.operand(ty);
                Some(self.emit(InstKind::FNeg { ty, arg }, ty, "neg", total))
            }
            Kind::FCmp => {
                let ty = self.float_types[self.rng.gen_range(0..self.float_types.len())];
                let (lhs, rhs) = (self.operand(ty), self.operand(ty));
                let pred = FCmpPred::ALL[self.rng.gen_range(0..FCmpPred::ALL.len())];
                Some(self.emit(
                    InstKind::FCmp { pred, ty, lhs, rhs },
                    TypeTable::I1,
                    "fc",
                    total,
                ))
            }
            Kind::FloatCast => {
                let from = self.random_ty();
                let to = self.float_types[self.rng.gen_range(0..self.float_types.len())];
                let v = self.operand(from);
                Some(self.convert(v, to))
            }
            Kind::Load => Some(self.gen_load()),
            Kind::Store => {
                self.gen_store();
                None
            }
            Kind::Horizontal => Some(self.gen_horizontal()),
            Kind::Mask => Some(self.emit(InstKind::Mask, TypeTable::I1, "m", false)),
        };
        if let Some(v) = result.filter(|&v| !self.module.types.is_ptr(self.ty(v))) {
            self.offer(v);
        }
    }

    /// An integer operator whose right operand keeps it defined: divisors are
    /// non-zero (positive for signed division, a power of two 30% of the
    /// time), shift amounts below the width.
    /// A `total` command never divides (its passive lanes may hold ⊤).
    fn gen_int_binary(&mut self, total: bool) -> Value {
        let ty = self.random_int_ty();
        let w = self.width(ty);
        let op = loop {
            let op = BinOp::ALL[self.rng.gen_range(0..13)];
            let divides = matches!(op, BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem);
            let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
            if !(divides && total || signed && w < 2) {
                break op;
            }
        };
        let mut lhs = self.operand(ty);
        let rhs = match op {
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                if self.rng.gen_bool(0.5) {
                    let k = self.rng.gen_range(0..w);
                    self.const_int(ty, u128::from(k))
                } else {
                    // The largest 2^k - 1 below w keeps the amount in range.
                    let mask = (1u128 << (31 - w.leading_zeros())) - 1;
                    let m = self.const_int(ty, mask);
                    let y = self.operand(ty);
                    self.binary(BinOp::And, ty, y, m, "amt", total)
                }
            }
            BinOp::UDiv | BinOp::URem => {
                if self.rng.gen_bool(0.4) {
                    // A non-zero constant that fits the width.
                    let max = if w >= 3 { 7 } else { (1u128 << w) - 1 };
                    let k = self.rng.gen_range(1..=max);
                    self.const_int(ty, k)
                } else {
                    let one = self.const_int(ty, 1);
                    let y = self.operand(ty);
                    self.binary(BinOp::Or, ty, y, one, "nz", false)
                }
            }
            BinOp::SDiv | BinOp::SRem if self.rng.gen_bool(0.3) => {
                // A positive power of two: with a dividend made non-negative
                // half of the time, what `nonneg-div` rewrites.
                let k = self.rng.gen_range(0..w - 1);
                if self.rng.gen_bool(0.5) {
                    let one = self.const_int(ty, 1);
                    lhs = self.binary(BinOp::LShr, ty, lhs, one, "pos", false);
                }
                self.const_int(ty, 1u128 << k)
            }
            BinOp::SDiv | BinOp::SRem => {
                let one = self.const_int(ty, 1);
                let y = self.operand(ty);
                let half = self.binary(BinOp::LShr, ty, y, one, "pos", false);
                self.binary(BinOp::Or, ty, half, one, "nz", false)
            }
            _ => self.operand(ty),
        };
        self.binary(op, ty, lhs, rhs, "v", total)
    }

    /// Some integer value of the pool as `i64` (for indices).
    fn index_source(&mut self) -> Value {
        let ty = self.random_int_ty();
        let v = self.operand(ty);
        self.convert(v, TypeTable::I64)
    }

    /// `x & (len - 1)`: an in-bounds index of a power-of-two buffer.
    fn masked_index(&mut self, len: u64) -> Value {
        let x = self.index_source();
        let m = self.const_int(TypeTable::I64, u128::from(len - 1));
        self.binary(BinOp::And, TypeTable::I64, x, m, "idx", false)
    }

    /// `slice_base + (x & (slice - 1))`: an index into the lane's own slice; with
    /// [`crate::GenConfig::thread_indexed`] the slices are interleaved,
    /// `slice_base + (x & (slice - 1)) · lanes`, so a uniform `x` makes the
    /// lanes' elements adjacent.
    fn slice_index(&mut self) -> Value {
        let slice = u64::from(self.cfg.slice_len.max(1).next_power_of_two());
        let mut off = self.masked_index(slice);
        if self.cfg.thread_indexed {
            let lanes = u64::from(self.cfg.max_threads.max(1).next_power_of_two());
            let l = self.const_int(TypeTable::I64, u128::from(lanes));
            off = self.binary(BinOp::Mul, TypeTable::I64, off, l, "row", false);
        }
        match self.slice_base {
            Some(base) => self.binary(BinOp::Add, TypeTable::I64, base, off, "idx", false),
            None => off,
        }
    }

    /// `zext(tid) & (len - 1)`: clang's `a[tid]` into a power-of-two buffer.
    fn thread_index(&mut self, len: u64) -> Option<Value> {
        let tid = self.tid_wide?;
        let m = self.const_int(TypeTable::I64, u128::from(len - 1));
        Some(self.binary(BinOp::And, TypeTable::I64, tid, m, "idx", false))
    }

    /// A gather: a load from a read-only buffer anywhere, from the lane's own slice
    /// of a written buffer (or, outside lane-local programs and without
    /// [`crate::GenConfig::own_slice_reads`], anywhere in it), or from one of the
    /// lane's allocas.
    pub(super) fn gen_load(&mut self) -> Value {
        let n_buf = self.buffers.len();
        let n_alloca = self.allocas.len();
        let pick = self.rng.gen_range(0..n_buf + n_alloca);
        let (elem, ptr) = if pick < n_buf {
            let buf = self.buffers[pick].clone();
            let idx = if buf.sliced
                && (self.cfg.lane_local || self.cfg.own_slice_reads || self.rng.gen_bool(0.7))
            {
                self.slice_index()
            } else if self.cfg.thread_indexed && self.rng.gen_bool(0.4) {
                match self.thread_index(buf.len) {
                    Some(i) => i,
                    None => self.masked_index(buf.len),
                }
            } else {
                self.masked_index(buf.len)
            };
            let base = self.const_global(buf.global);
            (buf.elem, self.gep(buf.elem, base, idx))
        } else {
            let a = self.allocas[pick - n_buf];
            let slice = u64::from(self.cfg.slice_len.max(1).next_power_of_two());
            let idx = self.masked_index(slice);
            (TypeTable::I64, self.gep(TypeTable::I64, a.ptr, idx))
        };
        self.emit(
            InstKind::Load {
                ty: elem,
                ptr,
                align: None,
                volatile: false,
            },
            elem,
            "ld",
            false,
        )
    }

    /// A scatter to the lane's own slice of a written buffer, or to an alloca.
    fn gen_store(&mut self) {
        let written: Vec<usize> = (0..self.buffers.len())
            .filter(|&k| self.buffers[k].sliced)
            .collect();
        let n_alloca = self.allocas.len();
        let pick = self.rng.gen_range(0..written.len() + n_alloca);
        let (elem, ptr) = if pick < written.len() {
            let buf = self.buffers[written[pick]].clone();
            let idx = self.slice_index();
            let base = self.const_global(buf.global);
            (buf.elem, self.gep(buf.elem, base, idx))
        } else {
            let a = self.allocas[pick - written.len()];
            let slice = u64::from(self.cfg.slice_len.max(1).next_power_of_two());
            let idx = self.masked_index(slice);
            (TypeTable::I64, self.gep(TypeTable::I64, a.ptr, idx))
        };
        let value = self.operand(elem);
        self.emit_store(InstKind::Store {
            ty: elem,
            value,
            ptr,
            align: None,
            volatile: false,
        });
    }

    /// An `i1` defined in every lane: with `mask()`, `select i1 %m, i1 %c, i1 false
    /// total` (passive lanes contribute false); otherwise an everywhere-defined `i1`
    /// or a `total` compare of the thread id.
    fn everywhere_bool(&mut self) -> Value {
        if self.cfg.uses_mask() && self.rng.gen_bool(0.5) {
            let m = self.emit(InstKind::Mask, TypeTable::I1, "m", false);
            let c = self.operand(TypeTable::I1);
            let f = self.const_int(TypeTable::I1, 0);
            let v = self.emit(
                InstKind::Select {
                    ty: TypeTable::I1,
                    cond: m,
                    if_true: c,
                    if_false: f,
                },
                TypeTable::I1,
                "active",
                true,
            );
            self.facts[v].everywhere = !self.facts[v].local;
            return v;
        }
        let candidates: Vec<Value> = self
            .pool_of(TypeTable::I1)
            .into_iter()
            .filter(|&v| self.facts[v].everywhere)
            .collect();
        if !candidates.is_empty() && self.rng.gen_bool(0.5) {
            return candidates[self.rng.gen_range(0..candidates.len())];
        }
        let k = self.rng.gen_range(0..self.cfg.max_threads.max(1));
        let c = self.const_int(TypeTable::I32, u128::from(k));
        let pred = self.random_pred();
        self.icmp(pred, self.tid, c, true)
    }

    /// A horizontal builtin (Fig. 4.15) over an everywhere-defined `i1`.
    fn gen_horizontal(&mut self) -> Value {
        let arg = self.everywhere_bool();
        let (name, ret) = match self.rng.gen_range(0..4) {
            0 => ("pllvm.any", TypeTable::I1),
            1 => ("pllvm.all", TypeTable::I1),
            2 => ("pllvm.popcount", TypeTable::I32),
            _ => ("pllvm.ballot", TypeTable::I64),
        };
        let callee = self.builtin(name, ret, &[TypeTable::I1]);
        self.emit(
            InstKind::Call {
                callee,
                ret_ty: ret,
                args: vec![arg],
                bundles: Vec::new(),
            },
            ret,
            "h",
            false,
        )
    }

    // ---- control sources -------------------------------------------------------

    /// What the next branch decides on.
    pub(super) fn random_source(&mut self) -> Source {
        let mut menu = vec![
            Source::ThreadId,
            Source::Uniform,
            Source::Other,
            Source::Other,
        ];
        if self.cfg.memory {
            menu.push(Source::Load);
        }
        if !self.counters.is_empty() {
            menu.push(Source::Counter);
            menu.push(Source::Counter);
        }
        menu[self.rng.gen_range(0..menu.len())]
    }

    fn count_source(&mut self, source: Source) {
        let s = &mut self.stats;
        match source {
            Source::ThreadId => s.branch_on_tid += 1,
            Source::Load => s.branch_on_load += 1,
            Source::Uniform => s.branch_on_uniform += 1,
            Source::Counter => s.branch_on_counter += 1,
            Source::Other => s.branch_on_value += 1,
        }
    }

    /// An integer value from `source` (for compares, switches and trip bounds).
    fn source_value(&mut self, source: Source) -> Value {
        match source {
            Source::ThreadId => self.tid,
            Source::Uniform => self.uniform,
            Source::Load => self.gen_load(),
            Source::Counter => {
                let k = self.rng.gen_range(0..self.counters.len());
                self.counters[k]
            }
            Source::Other => {
                let ty = self.random_int_ty();
                self.operand(ty)
            }
        }
    }

    /// A branch condition in the current block, counted in the statistics.
    pub(super) fn make_cond(&mut self) -> Value {
        let source = self.random_source();
        self.count_source(source);
        if source == Source::Other {
            let bools = self.pool_of(TypeTable::I1);
            if !bools.is_empty() && self.rng.gen_bool(0.5) {
                return bools[self.rng.gen_range(0..bools.len())];
            }
        }
        let v = self.source_value(source);
        let ty = self.ty(v);
        let bound = match source {
            Source::ThreadId => u128::from(self.cfg.max_threads.max(1)),
            Source::Counter => u128::from(self.cfg.max_trip_count.max(1)),
            _ => 16,
        };
        let k = self.rng.gen_range(0..bound);
        let c = self.const_int(ty, k);
        let pred = self.random_pred();
        self.icmp(pred, v, c, false)
    }

    /// A switch scrutinee in the current block (often masked so cases are hit).
    pub(super) fn make_scrutinee(&mut self) -> Value {
        let source = self.random_source();
        self.count_source(source);
        let v = self.source_value(source);
        let ty = self.ty(v);
        if self.rng.gen_bool(0.6) {
            let m = self.const_int(ty, 3);
            return self.binary(BinOp::And, ty, v, m, "sw", false);
        }
        v
    }

    /// A loop's trip bound `%k` (an `i32` in `[0, max_trip_count]`), in the current
    /// block: a constant, or a value of the thread id, loaded data, the uniform
    /// argument, an enclosing counter or the pool reduced modulo the bound + 1.
    pub(super) fn trip_bound(&mut self) -> Value {
        let max = self.cfg.max_trip_count.max(1);
        if self.rng.gen_bool(0.3) {
            let k = self.rng.gen_range(1..=max);
            return self.const_int(TypeTable::I32, u128::from(k));
        }
        self.stats.divergent_bounds += 1;
        let source = self.random_source();
        let v = self.source_value(source);
        let v32 = self.convert(v, TypeTable::I32);
        let m = self.const_int(TypeTable::I32, u128::from(max) + 1);
        self.binary(BinOp::URem, TypeTable::I32, v32, m, "k", false)
    }

    /// A `total` compare of two pool values of the current block's dominators (for a
    /// block predicate defined in the block itself, Def. 11.1): no new operands.
    pub(super) fn total_compare(&mut self) -> Value {
        let ty = self.random_int_ty();
        let avail = self.pool_of(ty);
        let lhs = if avail.is_empty() {
            self.tid
        } else {
            avail[self.rng.gen_range(0..avail.len())]
        };
        let ty = self.ty(lhs);
        let rhs = self.random_const(ty);
        let pred = self.random_pred();
        self.icmp(pred, lhs, rhs, true)
    }
}
