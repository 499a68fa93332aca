//! Blocks: every block of the kernel as one LLVM block, its phis, and its
//! terminator (branches and the masked store of the lanes' results).
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// One block: the activation after the phis, the commands, the phi operands of
    /// the successors, the terminator ([BLS-W-STEP], thesis §4.7).
    pub(super) fn block(&mut self, block: Block) -> Result<(), TransformError> {
        let data = &self.body.blocks[block];
        self.current = block;
        self.any_active = None;
        self.amask_bits = None;
        self.bits_cache.clear();
        match data.predicate {
            None => {
                self.amask = self.existing_vector();
                self.predicated = false;
            }
            Some(p) => {
                // amsk = cmsk ∧ pmsk (Def. 8), cmsk being the existing lanes; the
                // predicate is frozen: a ⊤ predicate under cmask is undefined in
                // P-LLVM, and LLVM must not see poison in a mask.
                let site = Site::Block(self.func, block);
                let mt = self.vty(self.ty_of(p));
                if self.is_scalar(p) {
                    let s = self.get(site, p, Form::Scalar)?;
                    let f = self.frozen(p, "i1", s);
                    let am = self.tmp();
                    let existing = self.existing_vector();
                    self.line(format!(
                        "{am} = select i1 {f}, {mt} {existing}, {mt} zeroinitializer"
                    ));
                    self.amask = am;
                } else {
                    let vec = self.get(site, p, Form::Vector)?;
                    let f = self.frozen(p, &mt, vec);
                    self.amask = if self.confined[p] {
                        f
                    } else {
                        self.and_existing(&mt, f)
                    };
                }
                self.predicated = true;
            }
        }
        for &inst in &data.body {
            self.command(inst)?;
        }
        // Phi operands of the successors, materialized here (a splat of a scalar
        // must be computed in the predecessor).
        let mut seen = BTreeSet::new();
        for succ in data.term.successors() {
            if !seen.insert(succ) {
                continue;
            }
            for &phi in &self.body.blocks[succ].phis {
                let InstKind::Phi { incoming, .. } = &self.body.insts[phi].kind else {
                    continue;
                };
                let Some(&(v, _)) = incoming.iter().find(|(_, b)| *b == block) else {
                    return Err(refuse(
                        Site::Inst(self.func, phi),
                        format!("the phi lists no value for the edge from %{}", data.name),
                    ));
                };
                let result = self.body.insts[phi]
                    .result
                    .ok_or_else(|| refuse(Site::Inst(self.func, phi), "a phi without a result"))?;
                let form = match self.repr[result] {
                    Repr::Scalar => Form::Scalar,
                    Repr::Vector => Form::Vector,
                };
                let site = Site::Inst(self.func, phi);
                let text = if form == Form::Scalar
                    && self.repr[v] == Repr::Vector
                    && !matches!(self.body.values[v].def, ValueDef::Const(_))
                {
                    self.scalar_of(site, v)?
                } else {
                    self.get(site, v, form)?
                };
                self.phi_args.insert((phi, block), text);
            }
        }
        self.terminator(block)
    }

    /// A phi ([evalphi], §4.8): under uniform control every existing lane has
    /// cmask 1 and came along the edge the chunk took, so the LLVM phi is exact
    /// and a shadow operand is never taken.
    pub(super) fn phi(&self, block: Block, phi: Inst) -> Result<String, TransformError> {
        let site = Site::Inst(self.func, phi);
        let InstKind::Phi { ty, .. } = &self.body.insts[phi].kind else {
            return Err(refuse(site, "internal: a phi list holds a non-phi"));
        };
        let result = self.body.insts[phi]
            .result
            .ok_or_else(|| refuse(site, "a phi without a result"))?;
        let t = match self.repr[result] {
            Repr::Scalar => self.sty(*ty),
            Repr::Vector => self.vty(*ty),
        };
        let mut arms = Vec::new();
        for &(pred, edges) in self.edges_into.get(&block).map_or(&[][..], Vec::as_slice) {
            let text = self.phi_args.get(&(phi, pred)).ok_or_else(|| {
                refuse(
                    site,
                    format!(
                        "the phi lists no value for the edge from %{}",
                        self.body.blocks[pred].name
                    ),
                )
            })?;
            for _ in 0..edges {
                arms.push(format!("[ {text}, %b{} ]", pred.index()));
            }
        }
        Ok(format!(
            "  {} = phi {t} {}\n",
            Self::name(result),
            arms.join(", ")
        ))
    }

    /// The terminator (`evalterm`, Fig. 4.9). A branch is uniform here: its
    /// condition is frozen (a passive lane's ⊤ must not become LLVM poison) and, if
    /// held per lane, read from the first active lane.
    pub(super) fn terminator(&mut self, block: Block) -> Result<(), TransformError> {
        let site = Site::Terminator(self.func, block);
        let term = &self.body.blocks[block].term;
        match term {
            Terminator::Br(target) => self.line(format!("br label %b{}", target.index())),
            Terminator::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.scalar_of(site, *cond)?;
                let f = self.frozen(*cond, "i1", c);
                self.line(format!(
                    "br i1 {f}, label %b{}, label %b{}",
                    if_true.index(),
                    if_false.index()
                ));
            }
            Terminator::Switch {
                ty,
                cond,
                default,
                cases,
            } => {
                let c = self.scalar_of(site, *cond)?;
                let st = self.sty(*ty);
                let f = self.frozen(*cond, &st, c);
                let mut arms = String::new();
                for (value, target) in cases {
                    let k = self.constant(site, *ty, &ConstData::Int(value.clone()))?;
                    let _ = write!(arms, " {st} {k}, label %b{}", target.index());
                }
                self.line(format!(
                    "switch {st} {f}, label %b{} [{arms} ]",
                    default.index()
                ));
            }
            Terminator::Ret(value) => {
                // □(r) in the active lanes (Fig. 4.9): lane l's result to ret[base + l].
                if let Some(v) = value {
                    let words = self.words_of(site, *v)?;
                    let w = self.w();
                    let at = self.inst("getelementptr i64, ptr %ret, i64 %base");
                    let (vt, bits) = (format!("<{w} x i64>"), format!("<{w} x i1>"));
                    let store = self.callee(
                        site,
                        "void",
                        &format!("llvm.masked.store.v{w}i64.p0"),
                        &[&vt, "ptr", "i32 immarg", &bits],
                    )?;
                    let mask = self.amask_bits();
                    self.call_void(
                        &store,
                        &[
                            &format!("{vt} {words}"),
                            &format!("ptr {at}"),
                            "i32 8",
                            &format!("{bits} {mask}"),
                        ],
                        "",
                    );
                }
                self.line("ret void");
            }
            // An active lane reaching it is undefined behaviour; no lane is.
            Terminator::Unreachable => self.line("ret void"),
        }
        Ok(())
    }

    /// `v` as `<W x i64>` argument words of the ABI ("bits": integers
    /// zero-extended, float as its 32 bits, double as its 64, ptr as the address).
    pub(super) fn words_of(&mut self, site: Site, v: Value) -> Result<String, TransformError> {
        let ty = self.ty_of(v);
        let w = self.w();
        let vec = self.vec_operand(site, v, true)?;
        let t = self.tmp();
        match self.module.types.get(ty) {
            TypeData::Int(1) => self.line(format!("{t} = zext <{w} x i1> {vec} to <{w} x i64>")),
            TypeData::Int(64) => {
                self.line(format!("{t} = bitcast <{w} x i64> {vec} to <{w} x i64>"))
            }
            TypeData::Int(b) => self.line(format!("{t} = zext <{w} x i{b}> {vec} to <{w} x i64>")),
            TypeData::F32 => {
                let i = self.inst(format!("bitcast <{w} x float> {vec} to <{w} x i32>"));
                self.line(format!("{t} = zext <{w} x i32> {i} to <{w} x i64>"));
            }
            TypeData::F64 => {
                self.line(format!("{t} = bitcast <{w} x double> {vec} to <{w} x i64>"))
            }
            TypeData::Ptr(_) => {
                self.line(format!("{t} = ptrtoint <{w} x ptr> {vec} to <{w} x i64>"))
            }
            _ => {
                return Err(refuse(
                    site,
                    "a returned value of a type the ABI does not carry",
                ));
            }
        }
        Ok(t)
    }
}
