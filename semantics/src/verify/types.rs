//! The type rules of LLVM's LangRef, per instruction: operand and result
//! types, legal casts, `getelementptr` indices.

use super::{FunctionChecker, OperandAt, VerifyError};
use crate::diag::Span;
use crate::ir::{ConstData, GepIndex, Inst, InstKind, RmwOp, Value};
use crate::types::{Ty, TypeData, TypeTable};

impl FunctionChecker<'_> {
    /// The type rules of LLVM's LangRef for one phi or command.
    ///
    /// Longer than ~150 lines on purpose: one arm per
    /// [`InstKind`] variant, each a few lines of LangRef's type rule for it; one
    /// exhaustive match keeps the rules one table and makes the compiler ask for the
    /// rule of a new kind.
    pub(super) fn check_inst_types(&mut self, inst: Inst) {
        let data = &self.body.insts[inst];
        let types = &self.module.types;
        let span = self.spans.insts[inst];
        let opcode = data.kind.opcode();
        // The type the result must have; `None` for instructions without a value.
        let result_ty: Option<Ty> = match &data.kind {
            InstKind::Phi {
                ty,
                incoming,
                shadow,
            } => {
                if !types.is_sized(*ty) {
                    self.error(
                        span,
                        kind_error(opcode, "a first-class type", types.display(*ty)),
                    );
                }
                for (operand, (value, _)) in incoming.iter().enumerate() {
                    self.expect_operand(OperandAt::Operand(inst, operand), *value, opcode, *ty);
                }
                if let Some(shadow) = shadow {
                    let found = self.body.values[*shadow].ty;
                    if found != *ty {
                        let error = VerifyError::ShadowType {
                            operand: self.value_text(*shadow),
                            found: types.display(found),
                            expected: types.display(*ty),
                        };
                        self.error(self.operand_span(inst, incoming.len()), error);
                    }
                }
                Some(*ty)
            }
            InstKind::Binary {
                op, ty, lhs, rhs, ..
            } => {
                let elem = types.scalar_of(*ty);
                let (fits, needs) = if op.is_float() {
                    (types.is_float(elem), "a floating-point type")
                } else {
                    (types.int_width(elem).is_some(), "an integer type")
                };
                if !fits {
                    self.error(span, kind_error(opcode, needs, types.display(*ty)));
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                Some(*ty)
            }
            InstKind::FNeg { ty, arg } => {
                if !types.is_float(types.scalar_of(*ty)) {
                    let error = kind_error(opcode, "a floating-point type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*arg], opcode, *ty);
                Some(*ty)
            }
            InstKind::ICmp { ty, lhs, rhs, .. } => {
                let elem = types.scalar_of(*ty);
                if types.int_width(elem).is_none() && !types.is_ptr(elem) {
                    let error =
                        kind_error(opcode, "an integer or pointer type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                compare_result(types, *ty)
            }
            InstKind::FCmp { ty, lhs, rhs, .. } => {
                if !types.is_float(types.scalar_of(*ty)) {
                    let error = kind_error(opcode, "a floating-point type", types.display(*ty));
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                compare_result(types, *ty)
            }
            InstKind::Cast {
                op, from, arg, to, ..
            } => {
                if let Err(why) = op.check_types(types, *from, *to) {
                    let error = VerifyError::IllegalCast {
                        opcode,
                        from: types.display(*from),
                        to: types.display(*to),
                        why,
                    };
                    self.error(span, error);
                }
                self.expect_operands(inst, &[*arg], opcode, *from);
                Some(*to)
            }
            InstKind::Select {
                ty,
                cond,
                if_true,
                if_false,
            } => {
                // A vector select may take one i1 or an <N x i1> condition.
                let cond_ty = self.body.values[*cond].ty;
                let vector_cond =
                    types.vector(*ty).is_some() && compare_result(types, *ty) == Some(cond_ty);
                if !vector_cond {
                    self.expect_operands(inst, &[*cond], opcode, TypeTable::I1);
                }
                let span_true = self.operand_span(inst, 1);
                self.expect_operand(span_true, *if_true, opcode, *ty);
                let span_false = self.operand_span(inst, 2);
                self.expect_operand(span_false, *if_false, opcode, *ty);
                Some(*ty)
            }
            InstKind::Freeze { ty, arg } => {
                self.expect_operands(inst, &[*arg], opcode, *ty);
                Some(*ty)
            }
            InstKind::Alloca { ty, count, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                if let Some(count) = count {
                    let found = self.body.values[*count].ty;
                    if types.int_width(found).is_none() {
                        let error = kind_error(opcode, "an integer count", types.display(found));
                        self.error(self.operand_span(inst, 0), error);
                    }
                }
                // The alloca address space is the data layout's choice: any pointer.
                if let Some(result) = data.result {
                    let found = self.body.values[result].ty;
                    if !types.is_ptr(found) {
                        let error = VerifyError::ResultType {
                            result: self.value_text(result),
                            opcode,
                            found: types.display(found),
                            expected: "ptr".into(),
                        };
                        self.error(span, error);
                    }
                }
                None
            }
            InstKind::Load { ty, ptr, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                self.expect_pointer(self.operand_span(inst, 0), *ptr, opcode);
                Some(*ty)
            }
            InstKind::Store { ty, value, ptr, .. } => {
                if !types.is_sized(*ty) {
                    self.error(span, kind_error(opcode, "a sized type", types.display(*ty)));
                }
                self.expect_operands(inst, &[*value], opcode, *ty);
                self.expect_pointer(self.operand_span(inst, 1), *ptr, opcode);
                None
            }
            InstKind::Gep {
                source_ty,
                base,
                indices,
                ..
            } => {
                self.check_gep(inst, *source_ty, *base, indices);
                Some(self.body.values[*base].ty).filter(|&t| types.is_ptr(t))
            }
            InstKind::Call {
                callee,
                ret_ty,
                args,
                ..
            } => {
                self.check_call(inst, *callee, *ret_ty, args);
                (!matches!(types.get(*ret_ty), TypeData::Void)).then_some(*ret_ty)
            }
            InstKind::Mask => None, // Checked by `check_modifiers` with its own message.
            InstKind::ExtractElement { ty, vector, index } => {
                self.expect_operands(inst, &[*vector], opcode, *ty);
                self.expect_int(inst, 1, *index, opcode);
                match types.vector(*ty) {
                    Some((_, elem)) => Some(elem),
                    None => {
                        self.error(
                            span,
                            kind_error(opcode, "a vector type", types.display(*ty)),
                        );
                        None
                    }
                }
            }
            InstKind::InsertElement {
                ty,
                vector,
                elem,
                index,
            } => {
                self.expect_operands(inst, &[*vector], opcode, *ty);
                match types.vector(*ty) {
                    Some((_, elem_ty)) => {
                        let at = self.operand_span(inst, 1);
                        self.expect_operand(at, *elem, opcode, elem_ty);
                    }
                    None => {
                        self.error(
                            span,
                            kind_error(opcode, "a vector type", types.display(*ty)),
                        );
                    }
                }
                self.expect_int(inst, 2, *index, opcode);
                Some(*ty)
            }
            InstKind::ShuffleVector { ty, lhs, rhs, mask } => {
                self.expect_operands(inst, &[*lhs, *rhs], opcode, *ty);
                match types.vector(*ty) {
                    Some((n, elem)) => {
                        if mask
                            .iter()
                            .flatten()
                            .any(|&k| u64::from(k) >= 2 * u64::from(n))
                        {
                            let error = kind_error(
                                opcode,
                                "mask elements below twice the operand length",
                                types.display(*ty),
                            );
                            self.error(span, error);
                        }
                        types.lookup(&TypeData::Vector(mask.len() as u32, elem))
                    }
                    None => {
                        self.error(
                            span,
                            kind_error(opcode, "a vector type", types.display(*ty)),
                        );
                        None
                    }
                }
            }
            InstKind::ExtractValue { ty, agg, indices } => {
                self.expect_operands(inst, &[*agg], opcode, *ty);
                let walked = types.aggregate_path(*ty, indices);
                if walked.is_none() {
                    let error =
                        kind_error(opcode, "indices within the aggregate", types.display(*ty));
                    self.error(span, error);
                }
                walked
            }
            InstKind::InsertValue {
                ty,
                agg,
                elem,
                indices,
            } => {
                self.expect_operands(inst, &[*agg], opcode, *ty);
                match types.aggregate_path(*ty, indices) {
                    Some(elem_ty) => {
                        let at = self.operand_span(inst, 1);
                        self.expect_operand(at, *elem, opcode, elem_ty);
                    }
                    None => {
                        let error =
                            kind_error(opcode, "indices within the aggregate", types.display(*ty));
                        self.error(span, error);
                    }
                }
                Some(*ty)
            }
            InstKind::AtomicRmw {
                op, ty, ptr, value, ..
            } => {
                self.expect_pointer(self.operand_span(inst, 0), *ptr, opcode);
                let fits = match op {
                    RmwOp::Xchg => types.is_scalar(*ty),
                    _ if op.is_float() => types.is_float(*ty),
                    _ => types.int_width(*ty).is_some(),
                };
                if !fits {
                    let needs = if op.is_float() {
                        "a floating-point type"
                    } else if *op == RmwOp::Xchg {
                        "an integer, floating-point or pointer type"
                    } else {
                        "an integer type"
                    };
                    self.error(span, kind_error(opcode, needs, types.display(*ty)));
                }
                let at = self.operand_span(inst, 1);
                self.expect_operand(at, *value, opcode, *ty);
                Some(*ty)
            }
            InstKind::CmpXchg {
                ty, ptr, cmp, new, ..
            } => {
                self.expect_pointer(self.operand_span(inst, 0), *ptr, opcode);
                if types.int_width(*ty).is_none() && !types.is_ptr(*ty) {
                    let error =
                        kind_error(opcode, "an integer or pointer type", types.display(*ty));
                    self.error(span, error);
                }
                let at = self.operand_span(inst, 1);
                self.expect_operand(at, *cmp, opcode, *ty);
                let at = self.operand_span(inst, 2);
                self.expect_operand(at, *new, opcode, *ty);
                types.lookup(&TypeData::Struct {
                    fields: vec![*ty, TypeTable::I1],
                    packed: false,
                })
            }
            InstKind::Fence { .. } => None,
        };
        let Some(result) = data.result else { return };
        let produces_nothing = matches!(data.kind, InstKind::Store { .. } | InstKind::Fence { .. })
            || matches!(&data.kind, InstKind::Call { ret_ty, .. } if matches!(types.get(*ret_ty), TypeData::Void));
        if produces_nothing {
            let error = VerifyError::ResultOfVoid {
                opcode,
                result: self.value_text(result),
            };
            self.error(span, error);
            return;
        }
        if let Some(expected) = result_ty {
            let found = self.body.values[result].ty;
            if found != expected {
                let error = VerifyError::ResultType {
                    result: self.value_text(result),
                    opcode,
                    found: types.display(found),
                    expected: types.display(expected),
                };
                self.error(span, error);
            }
        }
    }

    /// `getelementptr`: a pointer base, a sized source type, integer indices; after
    /// the first index each one steps into an array (any integer) or a struct (an
    /// `i32` constant below the field count).
    pub(super) fn check_gep(
        &mut self,
        inst: Inst,
        source_ty: Ty,
        base: Value,
        indices: &[GepIndex],
    ) {
        let types = &self.module.types;
        let opcode = "getelementptr";
        let span = self.spans.insts[inst];
        if !types.is_sized(source_ty) {
            self.error(
                span,
                kind_error(opcode, "a sized type", types.display(source_ty)),
            );
        }
        self.expect_pointer(self.operand_span(inst, 0), base, opcode);
        let mut current = source_ty;
        for (position, index) in indices.iter().enumerate() {
            let operand_span = self.operand_span(inst, position + 1);
            let index_ty = self.body.values[index.value].ty;
            if types.int_width(index_ty).is_none() {
                let error = kind_error(opcode, "integer indices", types.display(index_ty));
                self.error(operand_span, error);
                return;
            }
            if position == 0 {
                continue; // The first index steps over the pointer itself.
            }
            match types.get(current) {
                TypeData::Array(_, elem) => current = *elem,
                TypeData::Struct { fields, .. } => {
                    let field = match self.body.as_const(index.value) {
                        Some(ConstData::Int(n)) if index_ty == TypeTable::I32 => {
                            usize::try_from(n).ok().filter(|&n| n < fields.len())
                        }
                        _ => None,
                    };
                    let Some(field) = field else {
                        let error = VerifyError::GepStructIndex {
                            ty: types.display(current),
                            fields: fields.len(),
                        };
                        self.error(operand_span, error);
                        return;
                    };
                    current = fields[field];
                }
                _ => {
                    let ty = types.display(current);
                    self.error(operand_span, VerifyError::GepIntoScalar { ty });
                    return;
                }
            }
        }
    }

    /// Each of `values` (operands 0, 1, … of `inst`) has type `expected`.
    pub(super) fn expect_operands(
        &mut self,
        inst: Inst,
        values: &[Value],
        opcode: &'static str,
        expected: Ty,
    ) {
        for (operand, &value) in values.iter().enumerate() {
            self.expect_operand(OperandAt::Operand(inst, operand), value, opcode, expected);
        }
    }

    /// `value` has type `expected`.
    pub(super) fn expect_operand(
        &mut self,
        span: impl Into<OperandAt>,
        value: Value,
        opcode: &'static str,
        expected: Ty,
    ) {
        let found = self.body.values[value].ty;
        if found != expected {
            let span = self.at(span.into());
            let types = &self.module.types;
            let error = VerifyError::OperandType {
                operand: self.value_text(value),
                opcode,
                found: types.display(found),
                expected: types.display(expected),
            };
            self.error(span, error);
        }
    }

    /// Operand `operand` of `inst`, `value`, has an integer type.
    pub(super) fn expect_int(
        &mut self,
        inst: Inst,
        operand: usize,
        value: Value,
        opcode: &'static str,
    ) {
        let found = self.body.values[value].ty;
        if self.module.types.int_width(found).is_none() {
            let span = self.operand_span(inst, operand);
            let error = kind_error(opcode, "an integer index", self.module.types.display(found));
            self.error(span, error);
        }
    }

    /// `value` is a pointer.
    pub(super) fn expect_pointer(&mut self, span: Span, value: Value, opcode: &'static str) {
        let found = self.body.values[value].ty;
        if !self.module.types.is_ptr(found) {
            let error = VerifyError::OperandType {
                operand: self.value_text(value),
                opcode,
                found: self.module.types.display(found),
                expected: "a pointer".into(),
            };
            self.error(span, error);
        }
    }
}

/// The result type of a comparison of `ty` operands (`i1` or `<N x i1>`), if
/// interned (the parser interns it).
fn compare_result(types: &TypeTable, ty: Ty) -> Option<Ty> {
    match types.vector(ty) {
        Some((n, _)) => types.lookup(&TypeData::Vector(n, TypeTable::I1)),
        None => Some(TypeTable::I1),
    }
}

/// A [`VerifyError::WrongKind`].
pub(super) fn kind_error(opcode: &'static str, needs: &'static str, found: String) -> VerifyError {
    VerifyError::WrongKind {
        opcode,
        needs,
        found,
    }
}
