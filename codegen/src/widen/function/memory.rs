//! Memory accesses: stack objects ([W-INST-ALLOCA]), loads and stores as
//! masked contiguous accesses, gathers and scatters, or one scalar access.
#![allow(
    rustdoc::broken_intra_doc_links,
    reason = "[RULE] names the thesis's rules, not items"
)]

use super::*;

impl Emitter<'_, '_> {
    /// [W-INST-ALLOCA]: a private object per lane. One stack block of W objects,
    /// each lane's pointer `base + lane · stride`; of constant size it is placed in
    /// the prologue (an object per chunk, reused by a loop's iterations: the
    /// previous iteration's object is no longer read through a live pointer in
    /// the transformed kernels; a dynamic size is allocated where it stands).
    pub(super) fn alloca(
        &mut self,
        site: Site,
        r: Value,
        ty: Ty,
        count: Option<Value>,
        align: Option<u64>,
    ) -> Result<(), TransformError> {
        let types = &self.module.types;
        let size = types.size_of(ty);
        let obj_align = align.unwrap_or(0).max(types.align_of(ty)).max(1);
        let w = self.w() as u64;
        let constant_count = match count {
            None => Some(1u64),
            Some(c) => match self.body.as_const(c) {
                Some(ConstData::Int(n)) => n.iter_u64_digits().next().or(Some(0)),
                _ => None,
            },
        };
        let name = Self::name(r);
        match constant_count {
            Some(n) => {
                let stride = size
                    .saturating_mul(n)
                    .next_multiple_of(obj_align)
                    .max(obj_align);
                let total = stride.saturating_mul(w);
                if total > 1 << 30 {
                    return Err(refuse(
                        site,
                        format!("alloca of {total} bytes for {w} lanes is too large"),
                    ));
                }
                let offsets: Vec<String> = (0..w).map(|l| format!("i64 {}", l * stride)).collect();
                let raw = format!("%alloca.{}", r.index());
                let _ = writeln!(
                    self.prologue_allocas,
                    "  {raw} = alloca i8, i64 {total}, align {}",
                    obj_align.max(16)
                );
                let _ = writeln!(
                    self.prologue_allocas,
                    "  {name} = getelementptr i8, ptr {raw}, <{w} x i64> <{}>",
                    offsets.join(", ")
                );
                Ok(())
            }
            None => {
                let c = count.ok_or_else(|| refuse(site, "internal: alloca count"))?;
                if self.repr[c] == Repr::Vector {
                    return Err(refuse(
                        site,
                        "alloca with a varying element count: every lane's object must have one size to be widened",
                    ));
                }
                let ct = self.ty_of(c);
                let cs = self.get(site, c, Form::Scalar)?;
                let c64 = self.tmp();
                match types.int_width(ct) {
                    Some(64) => self.line(format!("{c64} = bitcast i64 {cs} to i64")),
                    Some(b) => self.line(format!("{c64} = zext i{b} {cs} to i64")),
                    None => return Err(refuse(site, "alloca count is not an integer")),
                }
                let bytes = self.inst(format!("mul i64 {c64}, {size}"));
                let padded = self.inst(format!("add i64 {bytes}, {}", obj_align - 1));
                let stride = self.inst(format!("and i64 {padded}, {}", !(obj_align - 1) as i64));
                let all = self.inst(format!("mul i64 {stride}, {w}"));
                let raw = self.inst(format!("alloca i8, i64 {all}, align {}", obj_align.max(16)));
                let s = self.splat_i64(&stride);
                let lanes: Vec<String> = (0..w).map(|l| format!("i64 {l}")).collect();
                let off = self.inst(format!("mul <{w} x i64> {s}, <{}>", lanes.join(", ")));
                self.line(format!(
                    "{name} = getelementptr i8, ptr {raw}, <{w} x i64> {off}"
                ));
                Ok(())
            }
        }
    }

    pub(super) fn splat_i64(&mut self, scalar: &str) -> String {
        let w = self.w();
        let ins = self.inst(format!(
            "insertelement <{w} x i64> poison, i64 {scalar}, i64 0"
        ));
        self.inst(format!(
            "shufflevector <{w} x i64> {ins}, <{w} x i64> poison, <{w} x i32> zeroinitializer"
        ))
    }

    /// The memory type of a loaded or stored `ty`: `i1` is a byte (its store size,
    /// §4.9.1's layout); integers other than 8, 16, 32, 64 bits are refused.
    pub(super) fn mem_ty(
        &self,
        site: Site,
        ty: Ty,
    ) -> Result<(String, String, u64), TransformError> {
        let (t, suffix) = match self.module.types.get(ty) {
            TypeData::Int(1) | TypeData::Int(8) => ("i8".to_string(), "i8".to_string()),
            TypeData::Int(w @ (16 | 32 | 64)) => (format!("i{w}"), format!("i{w}")),
            TypeData::F32 => ("float".into(), "f32".into()),
            TypeData::F64 => ("double".into(), "f64".into()),
            TypeData::Ptr(_) => ("ptr".into(), "p0".into()),
            _ => {
                return Err(refuse(
                    site,
                    format!(
                        "a memory access of type {}: widening takes i1, i8, i16, i32, i64, float, double and ptr",
                        self.module.types.display(ty)
                    ),
                ));
            }
        };
        let size = self.module.types.store_size(ty);
        Ok((t, suffix, size))
    }

    /// The alignment an access of `ty` states: the written `align`, else the
    /// type's ABI alignment (every vector access carries one explicitly).
    pub(super) fn mem_align(&self, ty: Ty, align: Option<u64>) -> u64 {
        align
            .unwrap_or_else(|| self.module.types.align_of(ty))
            .max(1)
    }

    /// The base address of a contiguous access through `ptr` (the `sa` analysis
    /// proves lane l's address is `base + l · size`, thesis Ch. 10), taken from
    /// the first active lane as `ptr[f] - f · size`; `None` if not proven.
    pub(super) fn contiguous_base(&mut self, ptr: Value, size: u64) -> Option<String> {
        if size == 0 || !(self.strided(ptr, i128::from(size)) || self.gep_of_unit_stride(ptr, size))
        {
            return None;
        }
        let w = self.w();
        let idx = self.first_active_index();
        let p = Self::name(ptr);
        let lane_ptr = self.inst(format!("extractelement <{w} x ptr> {p}, i64 {idx}"));
        let back = self.inst(format!("mul i64 {idx}, -{size}"));
        let base = self.inst(format!("getelementptr i8, ptr {lane_ptr}, i64 {back}"));
        Some(self.frozen(ptr, "ptr", base))
    }

    /// Whether the `sa` analysis gives `v` the shape `(stride, a)` (Fig. 10.4).
    pub(super) fn strided(&self, v: Value, stride: i128) -> bool {
        matches!(self.setup.strides.get(&v), Some(SaShape::Strided { stride: s, .. }) if *s == stride)
    }

    /// Whether `ptr` is a `getelementptr` from a scalar base whose indices are all
    /// scalar but one, an `i64` of sa-shape `(s, a)` (thesis Fig. 10.4) stepping
    /// over elements of `e` bytes with `s · e = size`: lane l's address is then
    /// exactly `base + l · size` (the `i64` index needs no extension, so the
    /// affine form cannot wrap between the lanes). This reads the index's shape,
    /// not the pointer's: `sa` gives an `inbounds` address of non-uniform lanes a
    /// varying shape (a lane out of bounds is ⊤ there), while the widened
    /// `getelementptr` drops `inbounds` and computes the plain sum in every lane.
    pub(super) fn gep_of_unit_stride(&self, ptr: Value, size: u64) -> bool {
        let Some(inst) = self.body.def_inst(ptr) else {
            return false;
        };
        let InstKind::Gep {
            source_ty,
            base,
            indices,
            ..
        } = &self.body.insts[inst].kind
        else {
            return false;
        };
        if !self.is_scalar(*base) {
            return false;
        }
        let types = &self.module.types;
        let mut current = *source_ty;
        let mut varying = None;
        for (k, index) in indices.iter().enumerate() {
            // The type this index steps over (as the interpreter's `gep` walks).
            if k > 0 {
                let step = match types.get(current) {
                    TypeData::Array(_, elem) => Some(*elem),
                    // A field index is a constant: scalar, no stride.
                    TypeData::Struct { .. } => match self.body.as_const(index.value) {
                        Some(ConstData::Int(f)) => u64::try_from(f)
                            .ok()
                            .and_then(|f| types.element_at(current, f)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(step) = step else { return false };
                current = step;
            }
            if self.is_scalar(index.value) {
                continue;
            }
            if varying.is_some() {
                return false;
            }
            varying = Some((index.value, types.size_of(current)));
        }
        let Some((index, element)) = varying else {
            return false;
        };
        let Some(SaShape::Strided { stride, .. }) = self.setup.strides.get(&index) else {
            return false;
        };
        types.int_width(self.ty_of(index)) == Some(64)
            && u64::try_from(*stride)
                .ok()
                .and_then(|s| s.checked_mul(element))
                == Some(size)
    }

    /// `<1 x i1>` holding the scalar `some` (for a masked scalar access).
    pub(super) fn one_lane_mask(&mut self, some: &str) -> String {
        self.inst(format!("insertelement <1 x i1> poison, i1 {some}, i64 0"))
    }

    /// [W-INST-LOAD]: `read^W` in the active lanes only (a passive lane's address
    /// may point anywhere and is never touched): a masked contiguous load where the
    /// `sa` analysis proves stride 1, a masked gather otherwise; a uniform address
    /// is read once (masked by "some lane is active" when the block may run with
    /// none).
    pub(super) fn load(
        &mut self,
        site: Site,
        r: Value,
        ty: Ty,
        ptr: Value,
        align: Option<u64>,
        total: bool,
    ) -> Result<(), TransformError> {
        let (mt, suffix, size) = self.mem_ty(site, ty)?;
        let a = self.mem_align(ty, align);
        let w = self.w();
        let i1 = self.is_i1(ty);
        let scalar_ptr = self.is_scalar(ptr);
        if scalar_ptr || self.repr[r] == Repr::Scalar {
            let p = self.scalar_of(site, ptr)?;
            let loaded = match self.some_active(total) {
                None => self.inst(format!("load {mt}, ptr {p}, align {a}")),
                Some(any) => {
                    let one = format!("<1 x {mt}>");
                    let load = self.callee(
                        site,
                        &one,
                        &format!("llvm.masked.load.v1{suffix}.p0"),
                        &["ptr", "i32 immarg", "<1 x i1>", &one],
                    )?;
                    let m = self.one_lane_mask(&any);
                    let v = self.call(
                        &load,
                        &[
                            &format!("ptr {p}"),
                            &format!("i32 {a}"),
                            &format!("<1 x i1> {m}"),
                            &format!("{one} zeroinitializer"),
                        ],
                    );
                    self.inst(format!("extractelement {one} {v}, i64 0"))
                }
            };
            let value = if i1 {
                self.inst(format!("trunc i8 {loaded} to i1"))
            } else {
                loaded
            };
            self.bind(r, &value, Form::Scalar);
            return Ok(());
        }
        let m = self.mask_of(total);
        let vt = format!("<{w} x {mt}>");
        let bits = format!("<{w} x i1>");
        let (align, mask, zero) = (
            format!("i32 {a}"),
            format!("{bits} {m}"),
            format!("{vt} zeroinitializer"),
        );
        let v = self.tmp();
        if let Some(base) = self.contiguous_base(ptr, size) {
            let load = self.callee(
                site,
                &vt,
                &format!("llvm.masked.load.v{w}{suffix}.p0"),
                &["ptr", "i32 immarg", &bits, &vt],
            )?;
            let args = [&format!("ptr {base}"), &align, &mask, &zero];
            self.call_into(
                &v,
                &load,
                &args.map(String::as_str),
                &format!(" {CONTIGUOUS}"),
            );
        } else {
            let gather = self.callee(
                site,
                &vt,
                &format!("llvm.masked.gather.v{w}{suffix}.v{w}p0"),
                &[&format!("<{w} x ptr>"), "i32 immarg", &bits, &vt],
            )?;
            let p = Self::name(ptr);
            let args = [&format!("<{w} x ptr> {p}"), &align, &mask, &zero];
            self.call_into(&v, &gather, &args.map(String::as_str), "");
        }
        if i1 {
            let t = self.inst(format!("trunc {vt} {v} to <{w} x i1>"));
            self.bind(r, &t, Form::Bits);
        } else {
            self.bind(r, &v, Form::Vector);
        }
        Ok(())
    }

    /// [W-INST-STORE]: `write^W` in the active lanes only: masked contiguous store,
    /// scatter, or one masked scalar store for a uniform address and value. Lanes
    /// storing different values to one address: the scatter's last lane wins (the
    /// thesis leaves it unspecified, §4.9.1).
    pub(super) fn store(
        &mut self,
        site: Site,
        ty: Ty,
        value: Value,
        ptr: Value,
        align: Option<u64>,
        total: bool,
    ) -> Result<(), TransformError> {
        let (mt, suffix, size) = self.mem_ty(site, ty)?;
        let a = self.mem_align(ty, align);
        let w = self.w();
        let i1 = self.is_i1(ty);
        if self.is_scalar(ptr) && self.is_scalar(value) {
            let p = self.get(site, ptr, Form::Scalar)?;
            let mut v = self.get(site, value, Form::Scalar)?;
            if i1 {
                let t = self.inst(format!("zext i1 {v} to i8"));
                v = t;
            }
            match self.some_active(total) {
                None => self.line(format!("store {mt} {v}, ptr {p}, align {a}")),
                Some(any) => {
                    let vt = format!("<1 x {mt}>");
                    let store = self.callee(
                        site,
                        "void",
                        &format!("llvm.masked.store.v1{suffix}.p0"),
                        &[&vt, "ptr", "i32 immarg", "<1 x i1>"],
                    )?;
                    let m = self.one_lane_mask(&any);
                    let one = self.inst(format!("insertelement {vt} poison, {mt} {v}, i64 0"));
                    self.call_void(
                        &store,
                        &[
                            &format!("{vt} {one}"),
                            &format!("ptr {p}"),
                            &format!("i32 {a}"),
                            &format!("<1 x i1> {m}"),
                        ],
                        "",
                    );
                }
            }
            return Ok(());
        }
        let vt = format!("<{w} x {mt}>");
        let mut v = self.vec_operand(site, value, true)?;
        if i1 {
            let t = self.inst(format!("zext <{w} x i1> {v} to {vt}"));
            v = t;
        }
        let m = self.mask_of(total);
        let contiguous = if self.is_scalar(ptr) {
            None
        } else {
            self.contiguous_base(ptr, size)
        };
        let bits = format!("<{w} x i1>");
        let (value, align, mask) = (
            format!("{vt} {v}"),
            format!("i32 {a}"),
            format!("{bits} {m}"),
        );
        if let Some(base) = contiguous {
            let store = self.callee(
                site,
                "void",
                &format!("llvm.masked.store.v{w}{suffix}.p0"),
                &[&vt, "ptr", "i32 immarg", &bits],
            )?;
            let args = [&value, &format!("ptr {base}"), &align, &mask];
            self.call_void(&store, &args.map(String::as_str), &format!(" {CONTIGUOUS}"));
        } else {
            let scatter = self.callee(
                site,
                "void",
                &format!("llvm.masked.scatter.v{w}{suffix}.v{w}p0"),
                &[&vt, &format!("<{w} x ptr>"), "i32 immarg", &bits],
            )?;
            let p = self.get(site, ptr, Form::Vector)?;
            let args = [&value, &format!("<{w} x ptr> {p}"), &align, &mask];
            self.call_void(&scatter, &args.map(String::as_str), "");
        }
        Ok(())
    }
}
