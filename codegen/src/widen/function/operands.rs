//! Operands: constants, splats, and each value in the form an instruction
//! takes it (scalar, vector, or `<W x i1>` bits), with the cache of forms.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// A constant as a scalar operand. `undef`/`poison` become zero, a refinement of
    /// ⊤ (pllvm's own `freeze` picks zero too), so no LLVM poison enters the code.
    pub(super) fn constant(
        &self,
        site: Site,
        ty: Ty,
        c: &ConstData,
    ) -> Result<String, TransformError> {
        let types = &self.module.types;
        Ok(match c {
            ConstData::Int(bits) => {
                let w = types.int_width(ty).unwrap_or(64);
                let raw = bits.iter_u64_digits().next().unwrap_or(0);
                if w == 1 {
                    if raw & 1 == 1 {
                        "true".into()
                    } else {
                        "false".into()
                    }
                } else {
                    let shift = 64 - w;
                    (((raw << shift) as i64) >> shift).to_string()
                }
            }
            ConstData::Float(bits) => match types.get(ty) {
                TypeData::F32 => format!("0x{:016X}", f32_as_double_bits(*bits as u32)),
                _ => format!("0x{bits:016X}"),
            },
            ConstData::Null => "null".into(),
            ConstData::Undef | ConstData::Poison | ConstData::Zero => match types.get(ty) {
                TypeData::Int(1) => "false".into(),
                TypeData::Int(_) => "0".into(),
                TypeData::F32 | TypeData::F64 => "0.0".into(),
                _ => "null".into(),
            },
            ConstData::Global(g) => format!("%g.{}", g.index()),
            ConstData::Elems(_) | ConstData::Splat(_) => {
                return Err(refuse(
                    site,
                    "a vector or aggregate constant: the native backend widens scalars only",
                ));
            }
            ConstData::Expr(_) => {
                return Err(refuse(
                    site,
                    "a constant expression: the native backend does not fold them",
                ));
            }
            ConstData::Function(f) => {
                return Err(refuse(
                    site,
                    format!(
                        "@{} is used as a value: function pointers are not widened",
                        self.module.functions[*f].name
                    ),
                ));
            }
        })
    }

    /// `text`, a float of type `ty` in `form`, with a NaN made the preferred NaN
    /// (positive, quiet, payload 0), the one pllvm's float operations return
    /// ([`super::nan`]): x86 would give its negative default NaN.
    pub(super) fn preferred_nan(&mut self, ty: Ty, text: &str, form: Form) -> String {
        let t = self.form_ty(ty, form);
        // LLVM writes float constants as the bits of the equal double.
        let nan = "0x7FF8000000000000";
        let (is_nan, canonical) = (self.tmp(), self.tmp());
        self.line(format!("{is_nan} = fcmp uno {t} {text}, {text}"));
        let preferred = if form == Form::Vector {
            format!("splat ({} {nan})", self.sty(ty))
        } else {
            nan.to_string()
        };
        let cond = if form == Form::Vector {
            format!("<{} x i1>", self.w())
        } else {
            "i1".to_string()
        };
        self.line(format!(
            "{canonical} = select {cond} {is_nan}, {t} {preferred}, {t} {text}"
        ));
        canonical
    }

    /// `scalar` of type `ty` broadcast to every lane, in `form` (`Vector` or `Bits`).
    pub(super) fn splat(&mut self, ty: Ty, scalar: &str, form: Form) -> String {
        let w = self.w();
        let (elem, value) =
            if form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
                let t = self.inst(format!("select i1 {scalar}, i32 -1, i32 0"));
                ("i32".to_string(), t)
            } else if form == Form::Bits {
                ("i1".to_string(), scalar.to_string())
            } else {
                (self.sty(ty), scalar.to_string())
            };
        let ins = self.inst(format!(
            "insertelement <{w} x {elem}> poison, {elem} {value}, i64 0"
        ));
        self.inst(format!(
            "shufflevector <{w} x {elem}> {ins}, <{w} x {elem}> poison, <{w} x i32> zeroinitializer"
        ))
    }

    /// A constant splat `scalar` of type `ty` in `form` (`Vector` or `Bits`), as a
    /// constant expression; the address of a global (loaded in the prologue) is
    /// splat by instructions.
    pub(super) fn const_splat(&mut self, ty: Ty, scalar: &str, form: Form) -> String {
        if scalar.starts_with('%') {
            return self.splat(ty, scalar, form);
        }
        let i32_mask = form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32;
        let (elem, value) = if i32_mask {
            (
                "i32".to_string(),
                if scalar == "true" { "-1" } else { "0" }.to_string(),
            )
        } else if form == Form::Bits {
            ("i1".to_string(), scalar.to_string())
        } else {
            (self.sty(ty), scalar.to_string())
        };
        if matches!(value.as_str(), "0" | "false" | "null" | "0.0") {
            "zeroinitializer".into()
        } else {
            format!("splat ({elem} {value})")
        }
    }

    /// `text`, the form `ty_text` of value `v`, frozen if `v` may be LLVM poison
    /// or undef ([`repr::may_be_poison`]): what a branch, a reduction, an
    /// activation or a divisor reads must be a value.
    pub(super) fn frozen(&mut self, v: Value, ty_text: &str, text: String) -> String {
        if !self.poison[v] || matches!(self.body.values[v].def, ValueDef::Const(_)) {
            return text;
        }
        self.inst(format!("freeze {ty_text} {text}"))
    }

    /// Operand `v` in `form`, emitting the conversion it needs (a splat of a
    /// scalar, the sign bits of an `<W x i32>` mask).
    pub(super) fn get(
        &mut self,
        site: Site,
        v: Value,
        form: Form,
    ) -> Result<String, TransformError> {
        let ty = self.ty_of(v);
        let scalar_text = match &self.body.values[v].def {
            ValueDef::Const(c) => Some(self.constant(site, ty, c)?),
            _ if self.repr[v] == Repr::Scalar => Some(Self::name(v)),
            _ => None,
        };
        match (scalar_text, form) {
            (Some(s), Form::Scalar) => Ok(s),
            (Some(s), form) if matches!(self.body.values[v].def, ValueDef::Const(_)) => {
                Ok(self.const_splat(ty, &s, form))
            }
            (Some(s), form) if matches!(self.body.values[v].def, ValueDef::Param(_)) => {
                // Parameters are defined in the prologue: splat them there once.
                let key = (v, form == Form::Bits);
                if let Some(name) = self.param_splats.get(&key) {
                    return Ok(name.clone());
                }
                let name = format!("%splat.{}.{}", v.index(), u8::from(key.1));
                self.param_splats.insert(key, name.clone());
                let _ = s;
                Ok(name)
            }
            (Some(s), form) => Ok(self.splat(ty, &s, form)),
            (None, Form::Scalar) => Err(refuse(
                site,
                "internal: a varying value is needed as a scalar".to_string(),
            )),
            (None, Form::Vector) => Ok(Self::name(v)),
            (None, Form::Bits) => {
                if self.setup.mask == MaskRepr::I32 {
                    if let Some(t) = self.bits_cache.get(&v) {
                        return Ok(t.clone());
                    }
                    // The sign bit: lanes are 0 or -1, and LLVM selects blends
                    // and masked accesses on the sign bit without a compare.
                    let t = self.tmp();
                    let w = self.w();
                    self.line(format!(
                        "{t} = icmp slt <{w} x i32> {}, zeroinitializer",
                        Self::name(v)
                    ));
                    self.bits_cache.insert(v, t.clone());
                    Ok(t)
                } else {
                    Ok(Self::name(v))
                }
            }
        }
    }

    /// Operand `v` as the vector form of a vector result: `Bits` for `i1` when
    /// `bits`, else `Vector`.
    pub(super) fn vec_operand(
        &mut self,
        site: Site,
        v: Value,
        bits: bool,
    ) -> Result<String, TransformError> {
        let form = if bits && self.is_i1(self.ty_of(v)) {
            Form::Bits
        } else {
            Form::Vector
        };
        self.get(site, v, form)
    }

    /// Defines `result` (as `%vN`) from `text`, which holds the value in `form`,
    /// converting to the result's representation. A no-op `bitcast` names the value.
    pub(super) fn bind(&mut self, result: Value, text: &str, form: Form) {
        let ty = self.ty_of(result);
        let canonical;
        let text = if self.nan_results.contains(&result) && form != Form::Bits {
            canonical = self.preferred_nan(ty, text, form);
            canonical.as_str()
        } else {
            text
        };
        let name = Self::name(result);
        let want = self.repr[result];
        match (want, form) {
            (Repr::Scalar, Form::Scalar) | (Repr::Vector, Form::Vector) => {
                let t = self.form_ty(ty, form);
                self.line(format!("{name} = bitcast {t} {text} to {t}"));
            }
            (Repr::Vector, Form::Bits) => {
                let w = self.w();
                if self.setup.mask == MaskRepr::I32 {
                    self.line(format!("{name} = sext <{w} x i1> {text} to <{w} x i32>"));
                } else {
                    self.line(format!("{name} = bitcast <{w} x i1> {text} to <{w} x i1>"));
                }
            }
            (Repr::Vector, Form::Scalar) => {
                let s = self.splat(ty, text, Form::Vector);
                let t = self.vty(ty);
                self.line(format!("{name} = bitcast {t} {s} to {t}"));
            }
            (Repr::Scalar, _) => {
                // A vector where a scalar was decided cannot arise (repr is closed
                // upwards); take the first active lane to stay total.
                let t = self.form_ty(ty, form);
                let lane = self.first_active_index();
                let s = self.sty(ty);
                let e = self.inst(format!("extractelement {t} {text}, i64 {lane}"));
                if form == Form::Vector && self.is_i1(ty) && self.setup.mask == MaskRepr::I32 {
                    self.line(format!("{name} = trunc i32 {e} to i1"));
                } else {
                    self.line(format!("{name} = bitcast {s} {e} to {s}"));
                }
            }
        }
    }
}
