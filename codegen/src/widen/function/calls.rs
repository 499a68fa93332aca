//! Calls (θ, Fig. 4.14-4.15): the builtins (thread ids, the horizontal
//! reductions) and the pure math functions.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// [W-CMD-CALL] with θ (Fig. 4.14-4.15): the builtins of Fig. 4.15 over the
    /// chunk's existing lanes, pure math per lane (one scalar call per lane: the
    /// callee's own C or LLVM function, so results are those of the platform's
    /// library), the intrinsics without effect dropped.
    pub(super) fn call_command(
        &mut self,
        site: Site,
        result: Option<Value>,
        callee: FuncId,
        ret_ty: Ty,
        args: &[Value],
        total: bool,
    ) -> Result<(), TransformError> {
        let name = self.module.functions[callee].name.clone();
        let Some(builtin) = theta::resolve(&name) else {
            return Err(refuse(
                site,
                format!(
                    "a call of @{name}, which θ does not know: only builtins and math functions are widened"
                ),
            ));
        };
        let w = self.w();
        let _ = total;
        match builtin {
            Builtin::ThreadId => {
                let r = result.ok_or_else(|| refuse(site, "thread_id without a result"))?;
                let bits = self.module.types.int_width(ret_ty).unwrap_or(64);
                let t = self.tmp();
                if bits == 64 {
                    self.line(format!(
                        "{t} = bitcast <{w} x i64> %thread.id to <{w} x i64>"
                    ));
                } else {
                    self.line(format!(
                        "{t} = trunc <{w} x i64> %thread.id to <{w} x i{bits}>"
                    ));
                }
                self.bind(r, &t, Form::Vector);
                Ok(())
            }
            Builtin::Any | Builtin::All | Builtin::Popcount | Builtin::Ballot => {
                let r =
                    result.ok_or_else(|| refuse(site, "a horizontal builtin without a result"))?;
                let arg = *args
                    .first()
                    .ok_or_else(|| refuse(site, format!("@{name} needs an argument")))?;
                if matches!(builtin, Builtin::Any | Builtin::All)
                    && let Some(known) = self.known_reduction(builtin == Builtin::Any, arg, r)
                {
                    self.bind(r, &known, Form::Scalar);
                    return Ok(());
                }
                // The input is frozen if it may be LLVM poison (a passive lane's
                // ⊤ must not be poison in a reduction) and the lanes that do not
                // exist are left out (unless they are false already).
                let mt = self.vty(self.ty_of(arg));
                let vec = self.get(site, arg, Form::Vector)?;
                let f = self.frozen(arg, &mt, vec);
                let confined =
                    self.confined[arg] && !matches!(self.body.values[arg].def, ValueDef::Const(_));
                let existing = if confined {
                    f.clone()
                } else {
                    self.and_existing(&mt, f.clone())
                };
                let out = match builtin {
                    Builtin::Any => self.reduce("or", &existing),
                    Builtin::All if self.lanes == Lanes::Full => self.reduce("and", &f),
                    Builtin::All => {
                        let missing = self.tmp();
                        let ones = match self.setup.mask {
                            MaskRepr::I1 => "splat (i1 true)",
                            MaskRepr::I32 => "splat (i32 -1)",
                        };
                        self.line(format!("{missing} = xor {mt} %exists.v, {ones}"));
                        let m = self.inst(format!("or {mt} {f}, {missing}"));
                        self.reduce("and", &m)
                    }
                    _ => {
                        let m = if self.setup.mask == MaskRepr::I32 {
                            self.inst(format!("icmp slt {mt} {existing}, zeroinitializer"))
                        } else {
                            existing
                        };
                        let int = self.inst(format!("bitcast <{w} x i1> {m} to i{w}"));
                        let counted = if builtin == Builtin::Popcount {
                            let iw = format!("i{w}");
                            let ctpop = format!("llvm.ctpop.{iw}");
                            self.intrinsic(site, &iw, &ctpop, &[&iw], &[&format!("{iw} {int}")])?
                        } else {
                            int
                        };
                        let rb = self.module.types.int_width(ret_ty).ok_or_else(|| {
                            refuse(site, format!("@{name} must return an integer"))
                        })?;
                        let t = self.tmp();
                        match rb.cmp(&(w as u32)) {
                            std::cmp::Ordering::Equal => {
                                self.line(format!("{t} = bitcast i{w} {counted} to i{w}"))
                            }
                            std::cmp::Ordering::Less => {
                                self.line(format!("{t} = trunc i{w} {counted} to i{rb}"))
                            }
                            std::cmp::Ordering::Greater => {
                                self.line(format!("{t} = zext i{w} {counted} to i{rb}"))
                            }
                        }
                        t
                    }
                };
                self.bind(r, &out, Form::Scalar);
                Ok(())
            }
            Builtin::Math(theta::MathFn::FMulAdd) => self.fmuladd(site, result, ret_ty, args),
            Builtin::Math(theta::MathFn::Mul24(_) | theta::MathFn::MulHi(_)) => Err(refuse(
                site,
                format!(
                    "a call of @{name}: the targets' 24-bit and high-half multiplies are not widened"
                ),
            )),
            Builtin::Math(_) => self.math(site, result, &name, ret_ty, args),
            Builtin::Assume | Builtin::LifetimeStart | Builtin::LifetimeEnd | Builtin::NoOp => {
                Ok(())
            }
            Builtin::Memset | Builtin::Memcpy | Builtin::Memmove => Err(refuse(
                site,
                format!("a call of @{name}: memory intrinsics are not widened"),
            )),
            Builtin::GroupId | Builtin::GroupSize => Err(refuse(
                site,
                format!("a call of @{name}: work-groups exist only in `pllvm run --grid`"),
            )),
            Builtin::MbcntLo
            | Builtin::MbcntHi
            | Builtin::ReadFirstLane
            | Builtin::ReadLane
            | Builtin::WaveBallot
            | Builtin::LaneId
            | Builtin::WaveSize
            | Builtin::Shuffle(_)
            | Builtin::Vote(_)
            | Builtin::ActiveMask
            | Builtin::MatchAny
            | Builtin::Barrier
            | Builtin::WorkItem(_)
            | Builtin::GridDim(..)
            | Builtin::ConvergenceControl => Err(refuse(
                site,
                format!(
                    "a call of @{name}: the targets' wave operations, barriers and work-item functions are not widened"
                ),
            )),
        }
    }

    /// The value of `any(arg)` (`is_any`) or `all(arg)` when the kernel has
    /// computed it already: a reduction of the same [`reduction_key`] in a
    /// block that strictly dominates this one, or, for a key that is a phi of
    /// this block, a phi of the reductions that end each predecessor (the
    /// loop test of the latch is the header's test of the next iteration:
    /// `any` of a constant is that constant, lane 0 always existing).
    pub(super) fn known_reduction(
        &mut self,
        is_any: bool,
        arg: Value,
        result: Value,
    ) -> Option<String> {
        let key = reduction_key(self.body, &self.inst_block, arg);
        let available = |e: &Self, key: Value, at: Block, strict: bool| {
            e.reductions.get(&(is_any, key)).and_then(|found| {
                found.iter().find_map(|&(b, r)| {
                    let ok = if strict {
                        e.doms.strictly_dominates(b, at)
                    } else {
                        b == at || e.doms.strictly_dominates(b, at)
                    };
                    (ok && r != result).then(|| Self::name(r))
                })
            })
        };
        if let Some(name) = available(self, key, self.current, true) {
            return Some(name);
        }
        let inst = self.body.def_inst(key)?;
        let InstKind::Phi { incoming, .. } = &self.body.insts[inst].kind else {
            return None;
        };
        if self.inst_block.get(&inst) != Some(&self.current) {
            return None;
        }
        let mut arms = Vec::new();
        let into = self
            .edges_into
            .get(&self.current)
            .cloned()
            .unwrap_or_default();
        for (pred, edges) in into {
            let &(v, _) = incoming.iter().find(|(_, b)| *b == pred)?;
            let text = match self.body.as_const(v) {
                Some(ConstData::Int(k)) => if k.bit(0) { "true" } else { "false" }.to_string(),
                Some(ConstData::Zero) => "false".to_string(),
                Some(_) => return None,
                None => available(self, v, pred, false)?,
            };
            for _ in 0..edges {
                arms.push(format!("[ {text}, %b{} ]", pred.index()));
            }
        }
        let t = self.tmp();
        let line = format!("  {t} = phi i1 {}\n", arms.join(", "));
        self.extra_phis
            .entry(self.current)
            .or_default()
            .push_str(&line);
        Some(t)
    }

    /// A pure math function: one call, or one call per lane for a vector result
    /// (constant arguments such as `immarg` flags stay constants).
    /// `llvm.fmuladd(a, b, c)` as θ computes it: `a · b` rounded, then `+ c`
    /// rounded (`theta::apply_math`), an `fmul` and an `fadd` without the
    /// `contract` flag. LLVM lets a backend fuse `fmuladd` into one rounding
    /// (llc does where the target has FMA), which would differ from θ by an ulp;
    /// plain `fmul` and `fadd` are never fused by llc's default
    /// (`-fp-contract=on` fuses only `fmuladd`). On vectors of every lane at once.
    fn fmuladd(
        &mut self,
        site: Site,
        result: Option<Value>,
        ret_ty: Ty,
        args: &[Value],
    ) -> Result<(), TransformError> {
        let r = result.ok_or_else(|| refuse(site, "a call of @llvm.fmuladd without a result"))?;
        let [a, b, c] = args else {
            return Err(refuse(site, "@llvm.fmuladd takes three operands"));
        };
        let rt = self.sty(ret_ty);
        if self.repr[r] == Repr::Scalar {
            let (a, b, c) = (
                self.get(site, *a, Form::Scalar)?,
                self.get(site, *b, Form::Scalar)?,
                self.get(site, *c, Form::Scalar)?,
            );
            let m = self.inst(format!("fmul {rt} {a}, {b}"));
            let t = self.inst(format!("fadd {rt} {m}, {c}"));
            self.bind(r, &t, Form::Scalar);
            return Ok(());
        }
        let vt = format!("<{} x {rt}>", self.w());
        let (a, b, c) = (
            self.get(site, *a, Form::Vector)?,
            self.get(site, *b, Form::Vector)?,
            self.get(site, *c, Form::Vector)?,
        );
        let m = self.inst(format!("fmul {vt} {a}, {b}"));
        let t = self.inst(format!("fadd {vt} {m}, {c}"));
        self.bind(r, &t, Form::Vector);
        Ok(())
    }

    pub(super) fn math(
        &mut self,
        site: Site,
        result: Option<Value>,
        name: &str,
        ret_ty: Ty,
        args: &[Value],
    ) -> Result<(), TransformError> {
        let r =
            result.ok_or_else(|| refuse(site, format!("a call of @{name} without a result")))?;
        let rt = self.sty(ret_ty);
        let arg_tys: Vec<String> = args.iter().map(|&a| self.sty(self.ty_of(a))).collect();
        let immarg: Vec<String> = args
            .iter()
            .zip(&arg_tys)
            .map(|(&a, t)| {
                let is_flag = name.starts_with("llvm.")
                    && t == "i1"
                    && matches!(self.body.values[a].def, ValueDef::Const(_));
                if is_flag {
                    format!("{t} immarg")
                } else {
                    t.clone()
                }
            })
            .collect();
        let params: Vec<&str> = immarg.iter().map(String::as_str).collect();
        let callee = self.callee(site, &rt, name, &params)?;
        if self.repr[r] == Repr::Scalar {
            let mut parts = Vec::new();
            for (&a, t) in args.iter().zip(&arg_tys) {
                parts.push(format!("{t} {}", self.get(site, a, Form::Scalar)?));
            }
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            let t = self.call(&callee, &parts);
            self.bind(r, &t, Form::Scalar);
            return Ok(());
        }
        let w = self.w();
        let mut vectors = Vec::new();
        for &a in args {
            let scalar = self.is_scalar(a);
            if scalar {
                vectors.push((true, self.get(site, a, Form::Scalar)?));
            } else {
                vectors.push((false, self.vec_operand(site, a, true)?));
            }
        }
        let elem_is_i1 = self.is_i1(ret_ty);
        let mut acc = "poison".to_string();
        let acc_ty = format!("<{w} x {rt}>");
        for lane in 0..w {
            let mut parts = Vec::new();
            for ((scalar, text), t) in vectors.iter().zip(&arg_tys) {
                if *scalar {
                    parts.push(format!("{t} {text}"));
                } else {
                    let e = self.inst(format!("extractelement <{w} x {t}> {text}, i64 {lane}"));
                    parts.push(format!("{t} {e}"));
                }
            }
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            let c = self.call(&callee, &parts);
            acc = self.inst(format!(
                "insertelement {acc_ty} {acc}, {rt} {c}, i64 {lane}"
            ));
        }
        self.bind(r, &acc, if elem_is_i1 { Form::Bits } else { Form::Vector });
        Ok(())
    }
}
