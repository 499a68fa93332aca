//! Masks: the lanes that exist, the activation, and the horizontal
//! reductions of a mask (`any`/`all`, the first active lane).
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// The lanes that exist as `<W x i1>`: `%exists`, or all-true in a body
    /// for full chunks.
    pub(super) fn existing_bits(&self) -> String {
        match self.lanes {
            Lanes::Full => "splat (i1 true)".into(),
            Lanes::Any => "%exists".into(),
        }
    }

    /// The lanes that exist in the mask representation: `%exists.v`, or
    /// all-true in a body for full chunks.
    pub(super) fn existing_vector(&self) -> String {
        match (self.lanes, self.setup.mask) {
            (Lanes::Full, MaskRepr::I1) => "splat (i1 true)".into(),
            (Lanes::Full, MaskRepr::I32) => "splat (i32 -1)".into(),
            (Lanes::Any, _) => "%exists.v".into(),
        }
    }

    /// `mask ∧ exists` for a mask `mask` of type `mt` in the mask
    /// representation: `mask` itself in a body for full chunks.
    pub(super) fn and_existing(&mut self, mt: &str, mask: String) -> String {
        if self.lanes == Lanes::Full {
            return mask;
        }
        self.inst(format!("and {mt} {mask}, %exists.v"))
    }

    /// The `<W x i1>` mask a command runs under: the activation `amsk`
    /// ([BLS-W-STEP]), or every existing lane for a `total` command ([W-CMD-TOTAL]).
    pub(super) fn mask_of(&mut self, total: bool) -> String {
        if total {
            self.existing_bits()
        } else {
            self.amask_bits()
        }
    }

    /// The activation as `<W x i1>` (the sign bits of an `<W x i32>` mask,
    /// computed once per block).
    pub(super) fn amask_bits(&mut self) -> String {
        if self.setup.mask == MaskRepr::I1 {
            return self.amask.clone();
        }
        if let Some(bits) = &self.amask_bits {
            return bits.clone();
        }
        let bits = if self.amask == self.existing_vector() {
            self.existing_bits()
        } else {
            let w = self.w();
            let t = self.tmp();
            self.line(format!(
                "{t} = icmp slt <{w} x i32> {}, zeroinitializer",
                self.amask
            ));
            t
        };
        self.amask_bits = Some(bits.clone());
        bits
    }

    /// Whether some lane runs a command, as a scalar `i1`: `None` when that is
    /// certain (an unpredicated block or a `total` command: at least lane 0 exists).
    pub(super) fn some_active(&mut self, total: bool) -> Option<String> {
        if total || !self.predicated {
            return None;
        }
        if let Some(a) = &self.any_active {
            return Some(a.clone());
        }
        let a = self.reduce("or", &self.amask.clone());
        self.any_active = Some(a.clone());
        Some(a)
    }

    /// `llvm.vector.reduce.<op>` (`or`: some lane, `and`: every lane) of an
    /// `i1` vector in its vector form, as a scalar `i1`. An `<W x i32>` mask is
    /// reduced as `i32` lanes compared with zero (lanes are 0 or -1): LLVM
    /// folds the halves together and tests once (`vptest`), where a `<W x i1>`
    /// built from it would be packed lane by lane first.
    pub(super) fn reduce(&mut self, op: &str, vec: &str) -> String {
        let w = self.w();
        if self.setup.mask == MaskRepr::I1 {
            let name = format!("llvm.vector.reduce.{op}.v{w}i1");
            let bits = format!("<{w} x i1>");
            let arg = format!("{bits} {vec}");
            let reduce = self.own_callee("i1", &name, &[&bits]);
            return self.call(&reduce, &[&arg]);
        }
        // Fold the halves together down to one register of 32-bit lanes.
        let native = match self.setup.target {
            VectorTarget::Avx2 => 8,
            VectorTarget::Avx512 => 16,
            VectorTarget::Neon => 4,
        };
        let mut lanes = w;
        let mut x = vec.to_string();
        while lanes > native && lanes.is_multiple_of(2) {
            let half = lanes / 2;
            let lo: Vec<String> = (0..half).map(|l| format!("i32 {l}")).collect();
            let hi: Vec<String> = (half..lanes).map(|l| format!("i32 {l}")).collect();
            let (a, b, c) = (self.tmp(), self.tmp(), self.tmp());
            self.line(format!(
                "{a} = shufflevector <{lanes} x i32> {x}, <{lanes} x i32> poison, <{half} x i32> <{}>",
                lo.join(", ")
            ));
            self.line(format!(
                "{b} = shufflevector <{lanes} x i32> {x}, <{lanes} x i32> poison, <{half} x i32> <{}>",
                hi.join(", ")
            ));
            self.line(format!("{c} = {op} <{half} x i32> {a}, {b}"));
            x = c;
            lanes = half;
        }
        let out = self.tmp();
        if self.setup.target == VectorTarget::Neon {
            // No sign-mask move on NEON: a horizontal max/min of the lanes.
            let name = format!("llvm.vector.reduce.{op}.v{lanes}i32");
            let vt = format!("<{lanes} x i32>");
            let arg = format!("{vt} {x}");
            let reduce = self.own_callee("i32", &name, &[&vt]);
            let t = self.call(&reduce, &[&arg]);
            self.line(format!("{out} = icmp ne i32 {t}, 0"));
        } else {
            // The sign bits as an integer (`vmovmskps`), tested once.
            let s = self.inst(format!("icmp slt <{lanes} x i32> {x}, zeroinitializer"));
            let b = self.inst(format!("bitcast <{lanes} x i1> {s} to i{lanes}"));
            if op == "or" {
                self.line(format!("{out} = icmp ne i{lanes} {b}, 0"));
            } else {
                self.line(format!("{out} = icmp eq i{lanes} {b}, -1"));
            }
        }
        out
    }

    /// The index of the first lane of the activation (0 if none is active): the
    /// lane that speaks for all at a uniform branch.
    pub(super) fn first_active_index(&mut self) -> String {
        let w = self.w();
        let mask = self.amask_bits();
        let int = format!("i{w}");
        let cttz = self.own_callee(&int, &format!("llvm.cttz.{int}"), &[&int, "i1 immarg"]);
        let bits = self.inst(format!("bitcast <{w} x i1> {mask} to {int}"));
        let z = self.call(&cttz, &[&format!("{int} {bits}"), "i1 false"]);
        let over = self.inst(format!("icmp uge i{w} {z}, {w}"));
        let idx = self.inst(format!("select i1 {over}, i{w} 0, i{w} {z}"));
        let wide = self.tmp();
        if w == 64 {
            self.line(format!("{wide} = bitcast i64 {idx} to i64"));
        } else if w > 64 {
            self.line(format!("{wide} = trunc i{w} {idx} to i64"));
        } else {
            self.line(format!("{wide} = zext i{w} {idx} to i64"));
        }
        wide
    }

    /// Whether `v` is held as one scalar: a value the analysis keeps uniform, or a
    /// constant.
    pub(super) fn is_scalar(&self, v: Value) -> bool {
        self.repr[v] == Repr::Scalar || matches!(self.body.values[v].def, ValueDef::Const(_))
    }

    /// `v` as one scalar: itself if scalar, else its first active lane. Used where
    /// the lanes agree: a uniform branch condition (§6.3) or a uniform address.
    pub(super) fn scalar_of(&mut self, site: Site, v: Value) -> Result<String, TransformError> {
        if self.is_scalar(v) {
            return self.get(site, v, Form::Scalar);
        }
        let ty = self.ty_of(v);
        let vec = self.get(site, v, Form::Vector)?;
        let idx = self.first_active_index();
        let vt = self.vty(ty);
        let e = self.inst(format!("extractelement {vt} {vec}, i64 {idx}"));
        if self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
            let b = self.inst(format!("trunc i32 {e} to i1"));
            return Ok(b);
        }
        Ok(e)
    }
}
