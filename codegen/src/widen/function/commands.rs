//! Commands (`computecmd`, Fig. 4.12): the dispatch on the instruction, and the
//! arithmetic: comparisons, `select`s of masks, binary operators, casts.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;
use pllvm_semantics::ir::GepIndex;

impl Emitter<'_, '_> {
    /// `icmp` / `fcmp` (`opcode` with its predicate) of `operands` into `r`: `<W x i1>`
    /// when `vector`, a scalar `i1` otherwise; `bits` reads `i1` operands as
    /// `<W x i1>` (an `icmp` of masks).
    #[allow(
        clippy::too_many_arguments,
        reason = "the instruction's parts, as the other emitters of this impl take them"
    )]
    pub(super) fn compare(
        &mut self,
        site: Site,
        r: Value,
        opcode: &str,
        ty: Ty,
        operands: (Value, Value),
        vector: bool,
        bits: bool,
    ) -> Result<(), TransformError> {
        let (form, a) = self.operand(site, operands.0, vector, bits)?;
        let (_, b) = self.operand(site, operands.1, vector, bits)?;
        let tt = self.form_ty(ty, form);
        let t = self.inst(format!("{opcode} {tt} {a}, {b}"));
        self.bind(r, &t, if vector { Form::Bits } else { Form::Scalar });
        Ok(())
    }

    /// One command (`computecmd`, Fig. 4.12).
    pub(super) fn command(&mut self, inst: Inst) -> Result<(), TransformError> {
        let site = Site::Inst(self.func, inst);
        let data = &self.body.insts[inst];
        let total = data.total;
        let result = data.result;
        let vector = result.is_some_and(|r| self.repr[r] == Repr::Vector);
        match &data.kind {
            InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::AtomicRmw { .. }
            | InstKind::CmpXchg { .. }
            | InstKind::Fence { .. } => Err(refuse(
                site,
                format!(
                    "{}: the native backend does not compile vector or aggregate values or atomics",
                    data.kind.opcode()
                ),
            )),
            InstKind::Phi { .. } => Err(refuse(site, "a phi among the commands")),
            InstKind::Mask => {
                // [W-CMD-MASK]: the activation, in every lane.
                let r = result.ok_or_else(|| refuse(site, "mask() without a result"))?;
                let m = self.amask.clone();
                self.bind(r, &m, Form::Vector);
                Ok(())
            }
            InstKind::Binary {
                op, ty, lhs, rhs, ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "a binary operator without a result"))?;
                self.binary(site, r, *op, *ty, *lhs, *rhs, total, vector)
            }
            InstKind::FNeg { ty, arg } => {
                let r = result.ok_or_else(|| refuse(site, "fneg without a result"))?;
                let (form, a) = self.operand(site, *arg, vector, false)?;
                let t = self.tmp();
                let tt = self.form_ty(*ty, form);
                self.line(format!("{t} = fneg {tt} {a}"));
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::ICmp { pred, ty, lhs, rhs } => {
                let r = result.ok_or_else(|| refuse(site, "icmp without a result"))?;
                let opcode = format!("icmp {}", pred.name());
                self.compare(site, r, &opcode, *ty, (*lhs, *rhs), vector, true)
            }
            InstKind::FCmp { pred, ty, lhs, rhs } => {
                let r = result.ok_or_else(|| refuse(site, "fcmp without a result"))?;
                let opcode = format!("fcmp {}", pred.name());
                self.compare(site, r, &opcode, *ty, (*lhs, *rhs), vector, false)
            }
            InstKind::Cast {
                op, from, arg, to, ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "a cast without a result"))?;
                self.cast(site, r, *op, *from, *arg, *to, vector)
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                let r = result.ok_or_else(|| refuse(site, "select without a result"))?;
                self.select(site, r, *ty, (*cond, *if_true, *if_false), vector)
            }
            InstKind::Freeze { ty, arg } => {
                let r = result.ok_or_else(|| refuse(site, "freeze without a result"))?;
                let form = if vector { Form::Vector } else { Form::Scalar };
                let a = self.get(site, *arg, form)?;
                let tt = self.form_ty(*ty, form);
                let t = self.frozen(*arg, &tt, a);
                self.bind(r, &t, form);
                Ok(())
            }
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                let r = result.ok_or_else(|| refuse(site, "getelementptr without a result"))?;
                self.gep(site, r, *source_ty, *base, indices, vector)
            }
            InstKind::Alloca { ty, count, align } => {
                let r = result.ok_or_else(|| refuse(site, "alloca without a result"))?;
                self.alloca(site, r, *ty, *count, *align)
            }
            InstKind::Load { ty, ptr, align, .. } => {
                let r = result.ok_or_else(|| refuse(site, "load without a result"))?;
                self.load(site, r, *ty, *ptr, *align, total)
            }
            InstKind::Store {
                ty,
                value,
                ptr,
                align,
                ..
            } => self.store(site, *ty, *value, *ptr, *align, total),
            InstKind::Call {
                callee,
                ret_ty,
                args,
                ..
            } => self.call_command(site, result, *callee, *ret_ty, args, total),
        }
    }

    /// `select` into `r`: one arm when the other is `undef` (or both are one
    /// value), bit operations for `i1` vectors ([`Emitter::mask_select`]), a
    /// blend per lane for a varying condition, a plain `select` otherwise.
    pub(super) fn select(
        &mut self,
        site: Site,
        r: Value,
        ty: Ty,
        (cond, if_true, if_false): (Value, Value, Value),
        vector: bool,
    ) -> Result<(), TransformError> {
        let form = if vector { Form::Vector } else { Form::Scalar };
        // An `undef` arm is ⊤ in the lanes that choose it: the other
        // arm is a refinement of the whole select (no blend at all).
        let undef = |v: Value| {
            matches!(
                self.body.as_const(v),
                Some(ConstData::Undef | ConstData::Poison)
            )
        };
        let only = match (undef(if_true), undef(if_false)) {
            (true, false) => Some(if_false),
            (false, true) => Some(if_true),
            _ if if_true == if_false => Some(if_true),
            _ => None,
        };
        if let Some(v) = only {
            let a = self.get(site, v, form)?;
            self.bind(r, &a, form);
            return Ok(());
        }
        if vector && self.is_i1(ty) {
            return self.mask_select(site, r, cond, if_true, if_false);
        }
        let scalar_cond = self.is_scalar(cond);
        let c = if scalar_cond {
            self.get(site, cond, Form::Scalar)?
        } else {
            self.get(site, cond, Form::Bits)?
        };
        let ct = if scalar_cond {
            "i1".to_string()
        } else {
            self.bits_ty()
        };
        let a = self.get(site, if_true, form)?;
        let b = self.get(site, if_false, form)?;
        #[cfg(feature = "seeded-bugs")]
        let (a, b) = if !scalar_cond && seeded_bug("blend") {
            // The seeded bug: a per-lane select blends the wrong way.
            (b, a)
        } else {
            (a, b)
        };
        let tt = self.form_ty(ty, form);
        let t = self.inst(format!("select {ct} {c}, {tt} {a}, {tt} {b}"));
        self.bind(r, &t, form);
        Ok(())
    }

    /// `getelementptr` into `r`, over a vector of pointers when `vector`.
    pub(super) fn gep(
        &mut self,
        site: Site,
        r: Value,
        source_ty: Ty,
        base: Value,
        indices: &[GepIndex],
        vector: bool,
    ) -> Result<(), TransformError> {
        // `inbounds` is dropped: it makes poison, which a passive lane's
        // address must not be.
        let form = if vector { Form::Vector } else { Form::Scalar };
        let b = self.get(site, base, form)?;
        let bt = if vector {
            format!("<{} x ptr>", self.w())
        } else {
            "ptr".into()
        };
        let mut parts = vec![format!("{bt} {b}")];
        for index in indices {
            let v = index.value;
            let it = self.ty_of(v);
            let iform = if vector && self.repr[v] == Repr::Vector {
                Form::Vector
            } else {
                Form::Scalar
            };
            let text = if iform == Form::Scalar {
                self.get(site, v, Form::Scalar)?
            } else {
                self.get(site, v, Form::Vector)?
            };
            parts.push(format!("{} {text}", self.form_ty(it, iform)));
        }
        let src = self.module.types.display(source_ty);
        let t = self.inst(format!("getelementptr {src}, {}", parts.join(", ")));
        self.bind(r, &t, form);
        Ok(())
    }

    /// A `select` of `i1` vectors as bit operations on the mask representation
    /// (lanes of a mask are 0 or all ones, so `c ? a : b` is `(c & a) | (~c & b)`,
    /// with the constant arms folded: `select c, a, false` is `c & a`, `select c,
    /// true, b` is `c | b`): no blend and no conversion of `<W x i32>` masks.
    pub(super) fn mask_select(
        &mut self,
        site: Site,
        r: Value,
        cond: Value,
        if_true: Value,
        if_false: Value,
    ) -> Result<(), TransformError> {
        let ty = self.ty_of(r);
        let mt = self.vty(ty);
        let ones = match self.setup.mask {
            MaskRepr::I1 => "splat (i1 true)",
            MaskRepr::I32 => "splat (i32 -1)",
        };
        let konst = |e: &Self, v: Value| match e.body.as_const(v) {
            Some(ConstData::Int(k)) => Some(k.bit(0)),
            Some(ConstData::Zero) => Some(false),
            _ => None,
        };
        let scalar_cond = self.is_scalar(cond);
        if scalar_cond {
            // A uniform condition picks one whole vector.
            let cs = self.get(site, cond, Form::Scalar)?;
            let a = self.get(site, if_true, Form::Vector)?;
            let b = self.get(site, if_false, Form::Vector)?;
            let t = self.inst(format!("select i1 {cs}, {mt} {a}, {mt} {b}"));
            self.bind(r, &t, Form::Vector);
            return Ok(());
        }
        let c = self.get(site, cond, Form::Vector)?;
        let not = |e: &mut Self, x: &str| {
            let t = e.tmp();
            e.line(format!("{t} = xor {mt} {x}, {ones}"));
            t
        };
        let op = |e: &mut Self, o: &str, x: &str, y: &str| {
            let t = e.tmp();
            e.line(format!("{t} = {o} {mt} {x}, {y}"));
            t
        };
        let out = match (konst(self, if_true), konst(self, if_false)) {
            (Some(true), Some(false)) => c,
            (Some(false), Some(true)) => not(self, &c),
            (Some(a), Some(b)) if a == b => self.get(site, if_true, Form::Vector)?,
            // `c & a` with `a` one scalar for every lane: pick `c` or zero by
            // `a` (no broadcast of a scalar into a mask).
            (_, Some(false)) if self.repr[if_true] == Repr::Scalar => {
                let a = self.get(site, if_true, Form::Scalar)?;
                self.inst(format!("select i1 {a}, {mt} {c}, {mt} zeroinitializer"))
            }
            (_, Some(false)) => {
                let a = self.get(site, if_true, Form::Vector)?;
                op(self, "and", &c, &a)
            }
            (Some(true), _) => {
                let b = self.get(site, if_false, Form::Vector)?;
                op(self, "or", &c, &b)
            }
            (Some(false), _) => {
                let b = self.get(site, if_false, Form::Vector)?;
                let nc = not(self, &c);
                op(self, "and", &nc, &b)
            }
            (_, Some(true)) => {
                let a = self.get(site, if_true, Form::Vector)?;
                let nc = not(self, &c);
                op(self, "or", &nc, &a)
            }
            _ => {
                let a = self.get(site, if_true, Form::Vector)?;
                let b = self.get(site, if_false, Form::Vector)?;
                let ca = op(self, "and", &c, &a);
                let nc = not(self, &c);
                let nb = op(self, "and", &nc, &b);
                op(self, "or", &ca, &nb)
            }
        };
        self.bind(r, &out, Form::Vector);
        Ok(())
    }

    /// An operand of a lane-wise operator: the scalar, or (for a vector result) the
    /// vector form, `<W x i1>` for an `i1` operand when `bits` (comparisons).
    pub(super) fn operand(
        &mut self,
        site: Site,
        v: Value,
        vector: bool,
        bits: bool,
    ) -> Result<(Form, String), TransformError> {
        if vector {
            let form = if bits && self.is_i1(self.ty_of(v)) {
                Form::Bits
            } else {
                Form::Vector
            };
            Ok((form, self.get(site, v, form)?))
        } else {
            Ok((Form::Scalar, self.get(site, v, Form::Scalar)?))
        }
    }

    /// A binary operator, lane by lane, without `nsw`/`nuw`/`exact` (they make
    /// poison where P-LLVM's passive lanes only hold ⊤). A divisor is
    /// `select(m, freeze(d), 1)` so that a passive or missing lane never traps, and
    /// `sdiv`/`srem` of the smallest integer by -1 divides by 1 instead (the
    /// wrapped quotient, remainder 0) so that no lane overflows the divider.
    #[allow(clippy::too_many_arguments, reason = "the parts of the binary command")]
    pub(super) fn binary(
        &mut self,
        site: Site,
        r: Value,
        op: BinOp,
        ty: Ty,
        lhs: Value,
        rhs: Value,
        total: bool,
        vector: bool,
    ) -> Result<(), TransformError> {
        let i1 = self.is_i1(ty);
        // and/or/xor work on either mask representation; other i1 arithmetic on bits.
        let bitwise = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
        let form = if !vector {
            Form::Scalar
        } else if i1 && !bitwise {
            Form::Bits
        } else {
            Form::Vector
        };
        let a = self.get(site, lhs, form)?;
        let mut b = self.get(site, rhs, form)?;
        let tt = self.form_ty(ty, form);
        // A constant divisor other than 0 (and -1 for the signed operators)
        // traps in no lane: it stays a constant, which LLVM divides by with
        // shifts and multiplications instead of one `idiv` per lane.
        let bits = self.module.types.int_width(ty).unwrap_or(64);
        let safe_constant = match self.body.as_const(rhs) {
            Some(ConstData::Int(d)) => {
                let all_ones = (BigUint::from(1u8) << bits) - 1u8;
                *d != BigUint::from(0u8)
                    && !(matches!(op, BinOp::SDiv | BinOp::SRem) && *d == all_ones)
            }
            _ => false,
        };
        if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) && !safe_constant {
            let elem = if form == Form::Bits {
                "i1".to_string()
            } else {
                self.sty(ty)
            };
            let one = if elem == "i1" {
                "true".to_string()
            } else {
                "1".to_string()
            };
            let one_v = if form == Form::Scalar {
                one.clone()
            } else {
                format!("splat ({elem} {one})")
            };
            let fd = self.frozen(rhs, &tt, b);
            let guarded = if form == Form::Scalar {
                match self.some_active(total) {
                    Some(any) => self.inst(format!("select i1 {any}, {tt} {fd}, {tt} {one_v}")),
                    None => fd,
                }
            } else {
                let m = self.mask_of(total);
                let g = self.tmp();
                self.line(format!(
                    "{g} = select {} {m}, {tt} {fd}, {tt} {one_v}",
                    self.bits_ty()
                ));
                g
            };
            b = guarded;
            if matches!(op, BinOp::SDiv | BinOp::SRem) && !i1 {
                let bits = self.module.types.int_width(ty).unwrap_or(64);
                let min = if bits == 64 {
                    i64::MIN.to_string()
                } else {
                    (-(1i64 << (bits - 1))).to_string()
                };
                let (min_v, m1_v, ct) = if form == Form::Scalar {
                    (min, "-1".to_string(), "i1".to_string())
                } else {
                    (
                        format!("splat ({elem} {min})"),
                        format!("splat ({elem} -1)"),
                        self.bits_ty(),
                    )
                };
                let fa = self.frozen(lhs, &tt, a.clone());
                let is_min = self.inst(format!("icmp eq {tt} {fa}, {min_v}"));
                let is_m1 = self.inst(format!("icmp eq {tt} {b}, {m1_v}"));
                let ov = self.inst(format!("and {ct} {is_min}, {is_m1}"));
                let g = self.inst(format!("select {ct} {ov}, {tt} {one_v}, {tt} {b}"));
                b = g;
            }
        }
        let t = self.inst(format!("{} {tt} {a}, {b}", op.name()));
        self.bind(r, &t, form);
        Ok(())
    }

    /// A cast, lane by lane, without flags; pointers of every address space are
    /// one `ptr`, so `addrspacecast` is a no-op.
    #[allow(clippy::too_many_arguments, reason = "the parts of the cast command")]
    pub(super) fn cast(
        &mut self,
        site: Site,
        r: Value,
        op: CastOp,
        from: Ty,
        arg: Value,
        to: Ty,
        vector: bool,
    ) -> Result<(), TransformError> {
        let from_i1 = self.is_i1(from);
        let to_i1 = self.is_i1(to);
        let (in_form, out_form) = if !vector {
            (Form::Scalar, Form::Scalar)
        } else if from_i1 && to_i1 {
            (Form::Vector, Form::Vector)
        } else {
            (
                if from_i1 { Form::Bits } else { Form::Vector },
                if to_i1 { Form::Bits } else { Form::Vector },
            )
        };
        let a = self.get(site, arg, in_form)?;
        let ft = self.form_ty(from, in_form);
        let tt = self.form_ty(to, out_form);
        let word = match op {
            CastOp::AddrSpaceCast => "bitcast",
            op if from_i1 && to_i1 => {
                let _ = op;
                "bitcast"
            }
            op => op.name(),
        };
        let t = self.inst(format!("{word} {ft} {a} to {tt}"));
        self.bind(r, &t, out_form);
        Ok(())
    }
}
