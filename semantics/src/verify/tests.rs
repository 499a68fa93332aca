//! Unit tests of the verifier: one per check family, on modules built by hand.

use super::*;
use crate::ir::{
    BinOp, BlockData, CastOp, ICmpPred, InstData, InstKind, IntFlags, Param, Terminator, ValueData,
};
use crate::types::{Ty, TypeData, TypeTable};

/// Builds one function `@f` by hand (the text parser is another module).
struct Builder {
    module: Module,
    body: Body,
    params: Vec<Param>,
    ret_ty: Ty,
}

impl Builder {
    fn new(ret_ty: Ty) -> Self {
        Builder {
            module: Module::default(),
            body: Body::default(),
            params: Vec::new(),
            ret_ty,
        }
    }
    fn param(&mut self, name: &str, ty: Ty) -> Value {
        let value = self.body.values.push(ValueData {
            ty,
            name: Some(name.into()),
            def: ValueDef::Param(self.params.len() as u32),
        });
        self.params.push(Param {
            ty,
            attrs: Vec::new(),
            value,
        });
        value
    }
    fn block(&mut self, name: &str) -> Block {
        let block = self.body.blocks.push(BlockData {
            name: name.into(),
            predicate: None,
            phis: Vec::new(),
            body: Vec::new(),
            term: Terminator::Unreachable,
        });
        self.body.layout.push(block);
        block
    }
    fn int(&mut self, ty: Ty, n: u64) -> Value {
        self.body.add_const(ty, ConstData::Int(BigUint::from(n)))
    }
    /// Appends `name = kind` (a phi goes to the phis) with result type `ty`.
    fn inst(&mut self, block: Block, name: Option<&str>, ty: Ty, kind: InstKind) -> Value {
        self.inst_full(block, name, ty, kind, false)
    }
    fn inst_full(
        &mut self,
        block: Block,
        name: Option<&str>,
        ty: Ty,
        kind: InstKind,
        total: bool,
    ) -> Value {
        let inst = self.body.insts.next_key();
        let value = self.body.values.push(ValueData {
            ty,
            name: name.map(Into::into),
            def: ValueDef::Inst(inst),
        });
        let is_phi = kind.is_phi();
        self.body.insts.push(InstData {
            kind,
            result: Some(value),
            total,
        });
        let data = &mut self.body.blocks[block];
        if is_phi {
            &mut data.phis
        } else {
            &mut data.body
        }
        .push(inst);
        value
    }
    /// Appends a command without a result (a store or a void call).
    fn void_inst(&mut self, block: Block, kind: InstKind) {
        let inst = self.body.insts.push(InstData {
            kind,
            result: None,
            total: false,
        });
        self.body.blocks[block].body.push(inst);
    }
    fn add(&mut self, block: Block, name: &str, lhs: Value, rhs: Value) -> Value {
        let kind = InstKind::Binary {
            op: BinOp::Add,
            flags: IntFlags::default(),
            ty: TypeTable::I32,
            lhs,
            rhs,
        };
        self.inst(block, Some(name), TypeTable::I32, kind)
    }
    fn term(&mut self, block: Block, term: Terminator) {
        self.body.blocks[block].term = term;
    }
    fn declare(&mut self, name: &str, ret_ty: Ty, params: &[Ty]) -> FuncId {
        let params = params
            .iter()
            .map(|&ty| Param {
                ty,
                attrs: Vec::new(),
                value: Value::from_u32(0),
            })
            .collect();
        self.module.functions.push(FunctionData {
            name: name.into(),
            ret_ty,
            params,
            cconv: None,
            variadic: false,
            convergent: false,
            body: None,
        })
    }
    fn finish(mut self) -> Module {
        let f = FunctionData {
            name: "f".into(),
            ret_ty: self.ret_ty,
            params: self.params,
            cconv: None,
            variadic: false,
            convergent: false,
            body: Some(self.body),
        };
        self.module.functions.push(f);
        self.module
    }
}

/// Verifies `module` and compares the error messages with `expect`.
fn check(module: Module, expect: &[&str]) -> VerifyReport {
    let report = verify_module(&module, &SourceMap::default());
    let messages: Vec<&str> = report.errors.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, expect);
    report
}

/// `entry: br %c, a, b; a: br j; b: br j; j: ret` with `%x` defined in `a`.
fn diamond(use_in_join: bool) -> Module {
    let mut b = Builder::new(TypeTable::I32);
    let c = b.param("c", TypeTable::I1);
    let n = b.param("n", TypeTable::I32);
    let entry = b.block("entry");
    let left = b.block("a");
    let right = b.block("b");
    let join = b.block("j");
    b.term(
        entry,
        Terminator::CondBr {
            cond: c,
            if_true: left,
            if_false: right,
        },
    );
    let x = b.add(left, "x", n, n);
    b.term(left, Terminator::Br(join));
    b.term(right, Terminator::Br(join));
    let ret = if use_in_join {
        x
    } else {
        let zero = b.int(TypeTable::I32, 0);
        let phi = InstKind::Phi {
            ty: TypeTable::I32,
            incoming: vec![(x, left), (zero, right)],
            shadow: None,
        };
        b.inst(join, Some("p"), TypeTable::I32, phi)
    };
    b.term(join, Terminator::Ret(Some(ret)));
    b.finish()
}

#[test]
fn well_formed_diamond_passes() {
    let report = check(diamond(false), &[]);
    assert_eq!(report.reducible, vec![(FuncId::from_u32(0), true)]);
    assert!(report.notes.is_empty());
}

#[test]
fn use_not_dominated() {
    check(
        diamond(true),
        &["use of %x is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn phi_use_counts_at_end_of_incoming_block() {
    // The phi reads %x on the edge from %b, where %x (defined in %a) is not available.
    let mut module = diamond(false);
    let body = module.functions[FuncId::from_u32(0)]
        .body
        .as_mut()
        .expect("defined");
    let phi = body.blocks[Block::from_u32(3)].phis[0];
    if let InstKind::Phi { incoming, .. } = &mut body.insts[phi].kind {
        incoming.swap(0, 1);
        incoming[0].1 = Block::from_u32(1);
        incoming[1].1 = Block::from_u32(2);
    }
    check(
        module,
        &["use of %x on the edge from %b is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn same_block_order_and_unreachable_exemption() {
    let mut b = Builder::new(TypeTable::VOID);
    let entry = b.block("entry");
    let dead = b.block("dead");
    // %y uses %x, defined after it, in the entry block.
    let placeholder = b.int(TypeTable::I32, 1);
    let y = b.add(entry, "y", placeholder, placeholder);
    let x = b.add(entry, "x", placeholder, placeholder);
    b.term(entry, Terminator::Ret(None));
    // In an unreachable block the same mistake is exempt, as in LLVM.
    let z = b.add(dead, "z", placeholder, placeholder);
    let w = b.add(dead, "w", placeholder, placeholder);
    b.term(dead, Terminator::Ret(None));
    let mut module = b.finish();
    let body = module.functions[FuncId::from_u32(0)]
        .body
        .as_mut()
        .expect("defined");
    for (user, used) in [(y, x), (z, w)] {
        let inst = body.def_inst(user).expect("instruction");
        if let InstKind::Binary { lhs, .. } = &mut body.insts[inst].kind {
            *lhs = used;
        }
    }
    check(
        module,
        &["use of %x is not dominated by its definition (SSA, thesis §2.2)"],
    );
}

#[test]
fn phi_incoming_must_match_predecessor_edges() {
    // entry: switch to %j twice and to %k; %j's phi lists entry once.
    let mut b = Builder::new(TypeTable::VOID);
    let s = b.param("s", TypeTable::I32);
    let entry = b.block("entry");
    let j = b.block("j");
    let k = b.block("k");
    b.term(
        entry,
        Terminator::Switch {
            ty: TypeTable::I32,
            cond: s,
            default: j,
            cases: vec![(BigUint::from(1u8), j), (BigUint::from(1u8), k)],
        },
    );
    let one = b.int(TypeTable::I32, 1);
    let two = b.int(TypeTable::I32, 2);
    let phi = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(one, entry)],
        shadow: None,
    };
    b.inst(j, Some("p"), TypeTable::I32, phi);
    let conflicting = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(one, entry), (two, entry), (one, k)],
        shadow: None,
    };
    b.inst(j, Some("q"), TypeTable::I32, conflicting);
    let missing = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![],
        shadow: None,
    };
    b.inst(k, Some("r"), TypeTable::I32, missing);
    b.term(j, Terminator::Ret(None));
    b.term(k, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "switch lists case 1 twice (LLVM LangRef: switch)",
            "phi has 1 entries for %entry, which has 2 edges to %j: one entry per edge, as in LLVM (SSA, thesis §2.2)",
            "phi has different values for the same predecessor %entry (SSA, thesis §2.2)",
            "phi lists %k, which is not a predecessor of %j (SSA, thesis §2.2)",
            "phi has no incoming values (SSA, thesis §2.2)",
        ],
    );
}

#[test]
fn names_and_entry_predecessors() {
    let mut b = Builder::new(TypeTable::VOID);
    let n = b.param("x", TypeTable::I32);
    let entry = b.block("entry");
    let missing_phi = b.block("loop");
    b.add(entry, "x", n, n);
    b.term(entry, Terminator::Br(missing_phi));
    let phi = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(n, entry)],
        shadow: None,
    };
    b.inst(missing_phi, Some("loop"), TypeTable::I32, phi);
    b.term(missing_phi, Terminator::Br(entry));
    check(
        b.finish(),
        &[
            "multiple definitions of %x (SSA, thesis §2.2)",
            "multiple definitions of %loop (SSA, thesis §2.2)",
            "branch to the entry block %entry, which has no predecessors in LLVM (Def. 1)",
        ],
    );
}

#[test]
fn type_errors() {
    let mut b = Builder::new(TypeTable::I32);
    let x = b.param("x", TypeTable::I32);
    let f = b.param("f", TypeTable::F32);
    let p = b.param("p", TypeTable::PTR);
    let entry = b.block("entry");
    b.add(entry, "a", x, f);
    let fadd = InstKind::Binary {
        op: BinOp::FAdd,
        flags: IntFlags::default(),
        ty: TypeTable::I32,
        lhs: x,
        rhs: x,
    };
    b.inst(entry, Some("b"), TypeTable::I32, fadd);
    let icmp = InstKind::ICmp {
        pred: ICmpPred::Eq,
        ty: TypeTable::PTR,
        lhs: p,
        rhs: p,
    };
    b.inst(entry, Some("c"), TypeTable::I32, icmp);
    let zext = InstKind::Cast {
        op: CastOp::ZExt,
        flags: IntFlags::default(),
        from: TypeTable::I32,
        arg: x,
        to: TypeTable::I8,
    };
    b.inst(entry, Some("d"), TypeTable::I8, zext);
    let select = InstKind::Select {
        ty: TypeTable::I32,
        cond: x,
        if_true: x,
        if_false: x,
    };
    b.inst(entry, Some("e"), TypeTable::I32, select);
    let load = InstKind::Load {
        ty: TypeTable::VOID,
        ptr: x,
        align: None,
        volatile: false,
    };
    b.inst(entry, Some("g"), TypeTable::VOID, load);
    b.term(entry, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "%f has type float, but add expects i32 (LLVM LangRef: add)",
            "fadd needs a floating-point type, found i32 (LLVM LangRef: fadd)",
            "%c has type i32, but icmp produces i1 (LLVM LangRef: icmp)",
            "zext from i32 to i8 is not a legal cast: the result must be wider (LLVM LangRef: zext)",
            "%x has type i32, but select expects i1 (LLVM LangRef: select)",
            "load needs a sized type, found void (LLVM LangRef: load)",
            "%x has type i32, but load expects a pointer (LLVM LangRef: load)",
            "ret without a value in function returning i32 (LLVM LangRef: ret)",
        ],
    );
}

#[test]
fn casts() {
    let mut t = TypeTable::new();
    let p3 = t.intern(TypeData::Ptr(3));
    let i16 = t.int(16);
    let ok = [
        (CastOp::Trunc, TypeTable::I32, TypeTable::I8),
        (CastOp::SExt, TypeTable::I1, TypeTable::I64),
        (CastOp::FpExt, TypeTable::F32, TypeTable::F64),
        (CastOp::FpTrunc, TypeTable::F64, TypeTable::F32),
        (CastOp::FpToSi, TypeTable::F64, i16),
        (CastOp::UiToFp, i16, TypeTable::F32),
        (CastOp::Bitcast, TypeTable::I32, TypeTable::F32),
        (CastOp::Bitcast, TypeTable::PTR, TypeTable::PTR),
        (CastOp::PtrToInt, p3, TypeTable::I64),
        (CastOp::IntToPtr, TypeTable::I64, p3),
        (CastOp::AddrSpaceCast, TypeTable::PTR, p3),
    ];
    for (op, from, to) in ok {
        assert_eq!(op.check_types(&t, from, to), Ok(()), "{}", op.name());
    }
    let bad = [
        (CastOp::Trunc, TypeTable::I8, TypeTable::I8),
        (CastOp::ZExt, TypeTable::F32, TypeTable::F64),
        (CastOp::FpExt, TypeTable::F64, TypeTable::F32),
        (CastOp::FpToUi, TypeTable::I32, TypeTable::I32),
        (CastOp::Bitcast, TypeTable::I64, TypeTable::F32),
        (CastOp::Bitcast, TypeTable::I64, TypeTable::PTR),
        (CastOp::Bitcast, TypeTable::PTR, p3),
        (CastOp::AddrSpaceCast, TypeTable::PTR, TypeTable::PTR),
        (CastOp::IntToPtr, TypeTable::PTR, TypeTable::PTR),
    ];
    for (op, from, to) in bad {
        assert!(op.check_types(&t, from, to).is_err(), "{}", op.name());
    }
}

#[test]
fn gep_and_store() {
    let mut b = Builder::new(TypeTable::VOID);
    let p = b.param("p", TypeTable::PTR);
    let i = b.param("i", TypeTable::I64);
    let entry = b.block("entry");
    let pair = b.module.types.intern(TypeData::Struct {
        fields: vec![TypeTable::I32, TypeTable::F64],
        packed: false,
    });
    let array = b.module.types.intern(TypeData::Array(4, pair));
    let zero = b.int(TypeTable::I64, 0);
    let one = b.int(TypeTable::I32, 1);
    let two = b.int(TypeTable::I32, 2);
    let gep = |indices: Vec<Value>| InstKind::Gep {
        inbounds: true,
        source_ty: array,
        base: p,
        indices: indices
            .into_iter()
            .map(|value| crate::ir::GepIndex { value })
            .collect(),
    };
    b.inst(entry, Some("ok"), TypeTable::PTR, gep(vec![zero, i, one]));
    b.inst(entry, Some("var"), TypeTable::PTR, gep(vec![zero, i, i]));
    b.inst(entry, Some("far"), TypeTable::PTR, gep(vec![zero, i, two]));
    b.inst(
        entry,
        Some("deep"),
        TypeTable::PTR,
        gep(vec![zero, i, one, zero]),
    );
    let store = InstKind::Store {
        ty: TypeTable::I32,
        value: i,
        ptr: p,
        align: None,
        volatile: false,
    };
    b.inst(entry, Some("z"), TypeTable::VOID, store);
    b.term(entry, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "getelementptr struct index into { i32, double } must be an i32 constant below 2 (LLVM LangRef: getelementptr)",
            "getelementptr struct index into { i32, double } must be an i32 constant below 2 (LLVM LangRef: getelementptr)",
            "getelementptr cannot index into double (LLVM LangRef: getelementptr)",
            "%i has type i64, but store expects i32 (LLVM LangRef: store)",
            "store produces no value, so it cannot define %z (thesis Fig. 4.13a)",
        ],
    );
}

#[test]
fn calls_and_theta() {
    let mut b = Builder::new(TypeTable::VOID);
    let x = b.param("x", TypeTable::F32);
    let sqrt = b.declare("sqrtf", TypeTable::F32, &[TypeTable::F32]);
    let mystery = b.declare("mystery", TypeTable::VOID, &[]);
    let reserved = b.declare("pllvm.mystery", TypeTable::VOID, &[]);
    let entry = b.block("entry");
    let call = |callee, ret_ty, args: Vec<Value>| InstKind::Call {
        callee,
        ret_ty,
        args,
        bundles: Vec::new(),
    };
    b.inst(
        entry,
        Some("ok"),
        TypeTable::F32,
        call(sqrt, TypeTable::F32, vec![x]),
    );
    b.inst(
        entry,
        Some("few"),
        TypeTable::F32,
        call(sqrt, TypeTable::F32, vec![]),
    );
    b.inst(
        entry,
        Some("ret"),
        TypeTable::I32,
        call(sqrt, TypeTable::I32, vec![x]),
    );
    // A declared external function: accepted (undefined only if executed).
    b.void_inst(entry, call(mystery, TypeTable::VOID, vec![]));
    b.void_inst(entry, call(reserved, TypeTable::VOID, vec![]));
    // A call to @f itself: a P-LLVM function (the parser would have refused it).
    b.void_inst(entry, call(FuncId::from_u32(3), TypeTable::VOID, vec![x]));
    b.term(entry, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "call to @sqrtf passes 0 arguments, but it takes 1 (LLVM LangRef: call)",
            "call to @sqrtf returns float, not i32 (LLVM LangRef: call)",
            "call to @pllvm.mystery, which is not in the function map θ (Def. 11.2, defined functions): the pllvm.* names are θ's own",
            "call to @f: P-LLVM has no calls to P-LLVM functions (thesis §4.9.2, Def. 11.2); the parser inlines calls that match their definition (docs/language.md)",
        ],
    );
}

#[test]
fn predicates_def_11_1() {
    let mut b = Builder::new(TypeTable::VOID);
    let c = b.param("c", TypeTable::I1);
    let n = b.param("n", TypeTable::I32);
    let entry = b.block("entry");
    let left = b.block("a");
    let join = b.block("j");
    let own = b.block("own");
    let by_phi = b.block("phi");
    b.term(
        entry,
        Terminator::CondBr {
            cond: c,
            if_true: left,
            if_false: join,
        },
    );
    let not = InstKind::Binary {
        op: BinOp::Xor,
        flags: IntFlags::default(),
        ty: TypeTable::I1,
        lhs: c,
        rhs: c,
    };
    let in_a = b.inst(left, Some("q"), TypeTable::I1, not.clone());
    b.term(left, Terminator::Br(join));
    b.body.blocks[join].predicate = Some(in_a);
    b.term(join, Terminator::Br(own));
    // %own: a non-total add, then the predicate defined by a non-total xor.
    b.add(own, "s", n, n);
    let own_pred = b.inst(own, Some("m"), TypeTable::I1, not.clone());
    b.body.blocks[own].predicate = Some(own_pred);
    b.term(own, Terminator::Br(by_phi));
    // %phi: predicate from its own phi, then a mask() (fine), a total mask().
    let t = b.int(TypeTable::I1, 1);
    let phi = InstKind::Phi {
        ty: TypeTable::I1,
        incoming: vec![(t, own)],
        shadow: Some(c),
    };
    let phi_pred = b.inst(by_phi, Some("pp"), TypeTable::I1, phi);
    b.body.blocks[by_phi].predicate = Some(phi_pred);
    b.inst(by_phi, Some("mk"), TypeTable::I1, InstKind::Mask);
    b.inst_full(by_phi, Some("mt"), TypeTable::I32, InstKind::Mask, true);
    b.term(by_phi, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "predicate %q of %j is defined in %a, which does not dominate %j (Def. 11.1, dominating predicate)",
            "add runs before the block predicate %m is defined, so it must be total (Def. 11.1, dominating predicate)",
            "block predicate %m is defined in its own block, so its definition must be total (Def. 11.1, dominating predicate)",
            "mask() cannot use the total modifier (thesis §4.9, [W-CMD-MASK])",
            "mask() returns i1, but %mt has type i32 (thesis §4.9, [W-CMD-MASK])",
        ],
    );
}

#[test]
fn shadow_operands() {
    // loop: %x = phi [0, entry], [%x, loop] shadow(%x) (the §9.1 idiom) is fine;
    // a shadow naming a later command of the block, or of another type, is not.
    let mut b = Builder::new(TypeTable::VOID);
    let c = b.param("c", TypeTable::I1);
    let entry = b.block("entry");
    let body = b.block("loop");
    let exit = b.block("exit");
    b.term(entry, Terminator::Br(body));
    let zero = b.int(TypeTable::I32, 0);
    let x_value = b.body.values.next_key();
    let phi = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(zero, entry), (x_value, body)],
        shadow: Some(x_value),
    };
    let x = b.inst(body, Some("x"), TypeTable::I32, phi);
    assert_eq!(x, x_value);
    let later_value = Value::from_u32(x_value.as_u32() + 2);
    let phi = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(zero, entry), (zero, body)],
        shadow: Some(later_value),
    };
    b.inst(body, Some("y"), TypeTable::I32, phi);
    let later = b.add(body, "later", x, x);
    assert_eq!(later, later_value);
    let phi = InstKind::Phi {
        ty: TypeTable::I32,
        incoming: vec![(zero, entry), (zero, body)],
        shadow: Some(c),
    };
    b.inst(body, Some("z"), TypeTable::I32, phi);
    b.term(
        body,
        Terminator::CondBr {
            cond: c,
            if_true: body,
            if_false: exit,
        },
    );
    b.term(exit, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "use of %later is not dominated by its definition (SSA, thesis §2.2)",
            "shadow operand %c has type i1, but the phi has type i32 (thesis §4.8)",
        ],
    );
}

#[test]
fn irreducible_is_a_note() {
    let mut b = Builder::new(TypeTable::VOID);
    let c = b.param("c", TypeTable::I1);
    let entry = b.block("entry");
    let x = b.block("x");
    let y = b.block("y");
    b.term(
        entry,
        Terminator::CondBr {
            cond: c,
            if_true: x,
            if_false: y,
        },
    );
    b.term(
        x,
        Terminator::CondBr {
            cond: c,
            if_true: y,
            if_false: x,
        },
    );
    b.term(y, Terminator::Br(x));
    let report = check(b.finish(), &[]);
    assert_eq!(report.reducible, vec![(FuncId::from_u32(0), false)]);
    let notes: Vec<&str> = report.notes.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(notes, ["function @f is irreducible (allowed)"]);
}

#[test]
fn malformed_handles_do_not_panic() {
    let mut b = Builder::new(TypeTable::VOID);
    let entry = b.block("entry");
    b.term(entry, Terminator::Br(Block::from_u32(9)));
    b.body.blocks[entry].predicate = Some(Value::from_u32(42));
    check(
        b.finish(),
        &[
            "malformed ir: predicate of %entry is a missing value",
            "malformed ir: terminator of %entry targets a missing block",
        ],
    );
    let mut empty = Builder::new(TypeTable::VOID);
    empty.body.layout.clear();
    check(empty.finish(), &["function @f has no blocks (Def. 1)"]);
}

#[test]
fn vector_aggregate_and_atomic_type_errors() {
    use crate::ir::{Atomic, Ordering, RmwOp};
    let mut b = Builder::new(TypeTable::VOID);
    let v4 = b.module.types.intern(TypeData::Vector(4, TypeTable::F32));
    let pair = b.module.types.intern(TypeData::Struct {
        fields: vec![TypeTable::I32, TypeTable::I1],
        packed: false,
    });
    let x = b.param("x", TypeTable::I32);
    let v = b.param("v", v4);
    let s = b.param("s", pair);
    let p = b.param("p", TypeTable::PTR);
    let entry = b.block("entry");
    let extract = InstKind::ExtractElement {
        ty: TypeTable::I32,
        vector: x,
        index: x,
    };
    b.inst(entry, Some("a"), TypeTable::I32, extract);
    let shuffle = InstKind::ShuffleVector {
        ty: v4,
        lhs: v,
        rhs: v,
        mask: vec![Some(8)],
    };
    b.inst(entry, Some("b"), v4, shuffle);
    let path = InstKind::ExtractValue {
        ty: pair,
        agg: s,
        indices: vec![2],
    };
    b.inst(entry, Some("c"), TypeTable::I32, path);
    let atomic = Atomic {
        ordering: Ordering::Monotonic,
        scope: None,
    };
    let rmw = InstKind::AtomicRmw {
        op: RmwOp::FAdd,
        ty: TypeTable::I32,
        ptr: p,
        value: x,
        atomic: atomic.clone(),
        volatile: false,
        align: None,
    };
    b.inst(entry, Some("d"), TypeTable::I32, rmw);
    let fmul = InstKind::Binary {
        op: BinOp::FMul,
        flags: IntFlags::default(),
        ty: v4,
        lhs: v,
        rhs: v,
    };
    b.inst(entry, Some("e"), v4, fmul);
    b.void_inst(entry, InstKind::Fence { atomic });
    b.term(entry, Terminator::Ret(None));
    check(
        b.finish(),
        &[
            "extractelement needs a vector type, found i32 (LLVM LangRef: extractelement)",
            "shufflevector needs mask elements below twice the operand length, found <4 x float> (LLVM LangRef: shufflevector)",
            "extractvalue needs indices within the aggregate, found { i32, i1 } (LLVM LangRef: extractvalue)",
            "atomicrmw needs a floating-point type, found i32 (LLVM LangRef: atomicrmw)",
        ],
    );
}

#[test]
fn vector_casts() {
    let mut t = TypeTable::new();
    let v4f = t.intern(TypeData::Vector(4, TypeTable::F32));
    let v4i = t.intern(TypeData::Vector(4, TypeTable::I32));
    let v2d = t.intern(TypeData::Vector(2, TypeTable::F64));
    let v2i = t.intern(TypeData::Vector(2, TypeTable::I32));
    let i128 = t.int(128);
    assert_eq!(CastOp::FpToSi.check_types(&t, v4f, v4i), Ok(()));
    assert_eq!(CastOp::Bitcast.check_types(&t, v4f, v2d), Ok(()));
    assert_eq!(CastOp::Bitcast.check_types(&t, v4i, i128), Ok(()));
    assert!(CastOp::FpToSi.check_types(&t, v4f, v2i).is_err());
    assert!(CastOp::ZExt.check_types(&t, v2i, TypeTable::I64).is_err());
    assert!(CastOp::Bitcast.check_types(&t, v4i, v2i).is_err());
}
