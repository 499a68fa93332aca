//! The builder the emitter writes through: temporaries, instructions into the
//! block being emitted, calls of intrinsics declared on first use ([`Callee`]),
//! and the LLVM types of the kernel's values in each form.
//!
//! Every instruction of the chunk function is written by these helpers, as the
//! thesis's vectorizer RV writes its widened code through a builder: an
//! instruction with a result is [`Emitter::inst`] (a fresh temporary `%tN`, then
//! the line), a call of an intrinsic is [`Emitter::callee`] (its `declare` line,
//! once per batch) and then [`Emitter::call`], [`Emitter::call_into`] or
//! [`Emitter::call_void`]; [`Emitter::intrinsic`] does both at once.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

/// A function the emitter calls, declared: its name and the LLVM type it returns.
pub(super) struct Callee {
    name: String,
    ret: String,
}

impl Emitter<'_, '_> {
    /// A fresh temporary, `%tN`.
    pub(super) fn tmp(&mut self) -> String {
        self.next_tmp += 1;
        format!("%t{}", self.next_tmp)
    }

    /// One line of the block being emitted.
    pub(super) fn line(&mut self, text: impl AsRef<str>) {
        self.out.push_str("  ");
        self.out.push_str(text.as_ref());
        self.out.push('\n');
    }

    /// The instruction `rhs` (e.g. `add i32 %a, %b`) into a fresh temporary,
    /// which it returns.
    pub(super) fn inst(&mut self, rhs: impl std::fmt::Display) -> String {
        let t = self.tmp();
        self.line(format!("{t} = {rhs}"));
        t
    }

    /// Records the line `declare …` of the callee `name` for the batch; a
    /// different signature already recorded for it is refused at `site`.
    pub(super) fn declare(
        &mut self,
        site: Site,
        name: &str,
        line: String,
    ) -> Result<(), TransformError> {
        self.decls.add(name, line).map_err(|m| refuse(site, m))
    }

    /// Declares `declare RET @NAME(PARAMS)` (once per batch) and returns the
    /// callee to call; a different signature recorded for `name` is refused at
    /// `site`.
    pub(super) fn callee(
        &mut self,
        site: Site,
        ret: &str,
        name: &str,
        params: &[&str],
    ) -> Result<Callee, TransformError> {
        let line = format!("declare {ret} @{name}({})", params.join(", "));
        self.declare(site, name, line)?;
        Ok(Callee {
            name: name.to_string(),
            ret: ret.to_string(),
        })
    }

    /// [`Emitter::callee`] for an intrinsic whose name fixes its signature (the
    /// reductions of masks, `cttz`): no other signature can be recorded for the
    /// name, so none is checked.
    pub(super) fn own_callee(&mut self, ret: &str, name: &str, params: &[&str]) -> Callee {
        let line = format!("declare {ret} @{name}({})", params.join(", "));
        let _ = self.decls.add(name, line);
        Callee {
            name: name.to_string(),
            ret: ret.to_string(),
        }
    }

    /// `call RET @NAME(ARGS)` into a fresh temporary, which it returns (`args`
    /// typed: `i32 %x`).
    pub(super) fn call(&mut self, callee: &Callee, args: &[&str]) -> String {
        let t = self.tmp();
        self.call_into(&t, callee, args, "");
        t
    }

    /// `DEST = call RET @NAME(ARGS)` into a temporary taken before, then `tail`
    /// (a comment, or nothing) after it.
    pub(super) fn call_into(&mut self, dest: &str, callee: &Callee, args: &[&str], tail: &str) {
        let Callee { name, ret } = callee;
        let args = args.join(", ");
        self.line(format!("{dest} = call {ret} @{name}({args}){tail}"));
    }

    /// `call void @NAME(ARGS)`, then `tail` (a comment, or nothing).
    pub(super) fn call_void(&mut self, callee: &Callee, args: &[&str], tail: &str) {
        let args = args.join(", ");
        self.line(format!("call void @{}({args}){tail}", callee.name));
    }

    /// [`Emitter::callee`] then [`Emitter::call`]: the intrinsic `name`'s result.
    pub(super) fn intrinsic(
        &mut self,
        site: Site,
        ret: &str,
        name: &str,
        params: &[&str],
        args: &[&str],
    ) -> Result<String, TransformError> {
        let callee = self.callee(site, ret, name, params)?;
        Ok(self.call(&callee, args))
    }

    /// W, the lanes of a chunk.
    pub(super) fn w(&self) -> usize {
        self.setup.width
    }

    /// The scalar LLVM type of `ty` (every pointer is `ptr`: the native address
    /// spaces are one).
    pub(super) fn sty(&self, ty: Ty) -> String {
        match self.module.types.get(ty) {
            TypeData::Int(w) => format!("i{w}"),
            TypeData::F32 => "float".into(),
            TypeData::F64 => "double".into(),
            TypeData::Ptr(_) => "ptr".into(),
            TypeData::Void => "void".into(),
            _ => self.module.types.display(ty),
        }
    }

    pub(super) fn is_i1(&self, ty: Ty) -> bool {
        self.module.types.int_width(ty) == Some(1)
    }

    /// The element type of `ty`'s vectors (the mask representation for `i1`).
    pub(super) fn ety(&self, ty: Ty) -> String {
        if self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
            "i32".into()
        } else {
            self.sty(ty)
        }
    }

    pub(super) fn vty(&self, ty: Ty) -> String {
        format!("<{} x {}>", self.w(), self.ety(ty))
    }

    pub(super) fn bits_ty(&self) -> String {
        format!("<{} x i1>", self.w())
    }

    /// The type text of a value in `form`.
    pub(super) fn form_ty(&self, ty: Ty, form: Form) -> String {
        match form {
            Form::Scalar => self.sty(ty),
            Form::Vector => self.vty(ty),
            Form::Bits => self.bits_ty(),
        }
    }

    pub(super) fn ty_of(&self, v: Value) -> Ty {
        self.body.values[v].ty
    }

    pub(super) fn name(v: Value) -> String {
        format!("%v{}", v.index())
    }
}
