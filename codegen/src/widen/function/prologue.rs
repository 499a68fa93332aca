//! The prologue of the chunk function: the lanes that exist, the thread ids,
//! the arguments, the globals.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// The entry of the chunk: which lanes exist (`lane < count`; the others are
    /// masked off from the start), the thread ids, the globals' addresses, the
    /// arguments and the stack objects.
    pub(super) fn prologue(&mut self, data: &FunctionData) -> Result<String, TransformError> {
        self.out.clear();
        let w = self.w();
        let lanes: Vec<String> = (0..w).map(|l| format!("i64 {l}")).collect();
        let lanes = format!("<{}>", lanes.join(", "));
        if self.lanes == Lanes::Any {
            self.existing_lanes();
        }
        self.line(format!(
            "%base.ins = insertelement <{w} x i64> poison, i64 %base, i64 0"
        ));
        self.line(format!(
            "%base.splat = shufflevector <{w} x i64> %base.ins, <{w} x i64> poison, <{w} x i32> zeroinitializer"
        ));
        self.line(format!("%thread.id = add <{w} x i64> %base.splat, {lanes}"));
        for (g, _) in self.module.globals.iter() {
            let k = g.index();
            self.line(format!(
                "%g.slot.{k} = getelementptr ptr, ptr %globals, i64 {k}"
            ));
            self.line(format!("%g.{k} = load ptr, ptr %g.slot.{k}, align 8"));
        }
        self.amask = self.existing_vector();
        self.amask_bits = None;
        self.bits_cache.clear();
        self.predicated = false;
        let site = Site::Function(self.func);
        for (k, param) in data.params.iter().enumerate() {
            let at = self.inst(format!("mul i64 %n, {k}"));
            let idx = self.inst(format!("add i64 {at}, %base"));
            let slot = self.inst(format!("getelementptr i64, ptr %args, i64 {idx}"));
            let ty = param.ty;
            if self.repr[param.value] == Repr::Scalar {
                // A uniform parameter: lane 0 (which always exists) speaks for all.
                let word = self.inst(format!("load i64, ptr {slot}, align 8"));
                let v = self.value_of_words(ty, &word, "i64");
                self.bind(param.value, &v, Form::Scalar);
            } else {
                let (vt, bits) = (format!("<{w} x i64>"), format!("<{w} x i1>"));
                let load = self.callee(
                    site,
                    &vt,
                    &format!("llvm.masked.load.v{w}i64.p0"),
                    &["ptr", "i32 immarg", &bits, &vt],
                )?;
                let existing = self.existing_bits();
                let words = self.call(
                    &load,
                    &[
                        &format!("ptr {slot}"),
                        "i32 8",
                        &format!("{bits} {existing}"),
                        &format!("{vt} zeroinitializer"),
                    ],
                );
                let v = self.value_of_words(ty, &words, &format!("<{w} x i64>"));
                let form = if self.is_i1(ty) {
                    Form::Bits
                } else {
                    Form::Vector
                };
                self.bind(param.value, &v, form);
            }
        }
        for ((v, bits), name) in std::mem::take(&mut self.param_splats) {
            let ty = self.ty_of(v);
            let form = if bits { Form::Bits } else { Form::Vector };
            let s = self.splat(ty, &Self::name(v), form);
            let t = self.form_ty(ty, form);
            self.line(format!("{name} = bitcast {t} {s} to {t}"));
        }
        let allocas = std::mem::take(&mut self.prologue_allocas);
        self.out.push_str(&allocas);
        let entry = self
            .body
            .entry()
            .ok_or_else(|| refuse(site, "the function has no blocks"))?;
        self.line(format!("br label %b{}", entry.index()));
        Ok(std::mem::take(&mut self.out))
    }

    /// `%exists` and `%exists.v`: the lanes that exist (`lane < count`).
    pub(super) fn existing_lanes(&mut self) {
        let w = self.w();
        // Compared in 32 bits (W <= 256; count <= W by the ABI, clamped all
        // the same): half the registers of an i64 compare.
        let lanes32: Vec<String> = (0..w).map(|l| format!("i32 {l}")).collect();
        let lanes32 = format!("<{}>", lanes32.join(", "));
        self.line(format!("%count.big = icmp ugt i64 %count, {w}"));
        self.line(format!(
            "%count.min = select i1 %count.big, i64 {w}, i64 %count"
        ));
        self.line("%count.32 = trunc i64 %count.min to i32");
        self.line(format!(
            "%count.ins = insertelement <{w} x i32> poison, i32 %count.32, i64 0"
        ));
        self.line(format!(
            "%count.splat = shufflevector <{w} x i32> %count.ins, <{w} x i32> poison, <{w} x i32> zeroinitializer"
        ));
        self.line(format!(
            "%exists = icmp ult <{w} x i32> {lanes32}, %count.splat"
        ));
        match self.setup.mask {
            MaskRepr::I32 => self.line(format!(
                "%exists.v = sext <{w} x i1> %exists to <{w} x i32>"
            )),
            MaskRepr::I1 => self.line(format!(
                "%exists.v = bitcast <{w} x i1> %exists to <{w} x i1>"
            )),
        }
    }

    /// A value of type `ty` from argument words (`word_ty` is `i64` or `<W x i64>`);
    /// `i1` comes out as `i1` / `<W x i1>`.
    pub(super) fn value_of_words(&mut self, ty: Ty, words: &str, word_ty: &str) -> String {
        let vector = word_ty.starts_with('<');
        let wrap = |elem: &str| {
            if vector {
                format!(
                    "<{} x {elem}>",
                    word_ty[1..].split(' ').next().unwrap_or("1")
                )
            } else {
                elem.to_string()
            }
        };
        let t = self.tmp();
        match self.module.types.get(ty) {
            TypeData::Int(64) => self.line(format!("{t} = bitcast {word_ty} {words} to {word_ty}")),
            TypeData::Int(b) => {
                let to = wrap(&format!("i{b}"));
                self.line(format!("{t} = trunc {word_ty} {words} to {to}"));
            }
            TypeData::F32 => {
                let i = self.tmp();
                let i32t = wrap("i32");
                self.line(format!("{i} = trunc {word_ty} {words} to {i32t}"));
                let ft = wrap("float");
                self.line(format!("{t} = bitcast {i32t} {i} to {ft}"));
            }
            TypeData::F64 => {
                let ft = wrap("double");
                self.line(format!("{t} = bitcast {word_ty} {words} to {ft}"));
            }
            _ => {
                let pt = wrap("ptr");
                self.line(format!("{t} = inttoptr {word_ty} {words} to {pt}"));
            }
        }
        t
    }
}
