//! The generator's builder: the function under construction, the scoped pool of
//! values a new command may use (SSA dominance, thesis §4.10), and the primitives
//! that add blocks, commands and phis (Fig. 4.2) through the IR arenas.

use super::spec::{ArgKind, ArgSpec, ArgTy, BufferSpec, GenConfig, Generated, Stats};
use num_bigint::BigUint;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{
    Block, BlockData, Body, ConstData, FuncId, FunctionData, GlobalData, GlobalId, GlobalInit,
    Inst, InstData, InstKind, Module, Param, Terminator, Value, ValueData, ValueDef,
};
use pllvm_semantics::types::{Ty, TypeData, TypeTable};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What the builder knows about a value it made (or a parameter / constant).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Facts {
    /// The block of the definition (`None` for parameters and constants).
    pub block: Option<Block>,
    /// Usable only inside `block`: a passive execution may leave it undefined (a
    /// non-total command under a block predicate) or change it (a shadow phi in a
    /// lane-local program, a `total` command over such a value).
    pub local: bool,
    /// Defined in every lane wherever it is usable (parameters, constants, entry
    /// values, `mask()`, `total` commands over such values): a horizontal builtin
    /// may take it.
    pub everywhere: bool,
}

/// An edge into a join block that is not built yet: its source and the values
/// available at the end of the source (candidates for the join's phis).
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub from: Block,
    pub avail: Vec<Value>,
}

/// A region whose exit block `break`s may target.
#[derive(Clone, Debug)]
pub(super) struct ExitCtx {
    pub block: Block,
    pub edges: Vec<Edge>,
}

/// A global buffer the program accesses.
#[derive(Clone, Debug)]
pub(super) struct Buffer {
    pub global: GlobalId,
    pub elem: Ty,
    pub len: u64,
    /// Written buffers are sliced per lane.
    pub sliced: bool,
}

/// A lane-private `alloca [slice_len x i64]` made in the entry block.
#[derive(Clone, Copy, Debug)]
pub(super) struct Alloca {
    pub ptr: Value,
}

pub(super) struct Builder<'c> {
    pub rng: ChaCha8Rng,
    pub cfg: &'c GenConfig,
    pub module: Module,
    pub body: Body,
    pub layout: Vec<Block>,
    pub cur: Block,
    pub entry: Block,
    pub facts: SecondaryMap<Value, Facts>,
    pub predicated: SecondaryMap<Block, bool>,
    pub scopes: Vec<Vec<Value>>,
    pub exits: Vec<ExitCtx>,
    pub counters: Vec<Value>,
    pub blocks_left: usize,
    pub cycle_depth: usize,
    pub names: u32,
    pub stats: Stats,
    pub int_types: Vec<Ty>,
    pub float_types: Vec<Ty>,
    pub builtins: Vec<(&'static str, FuncId)>,
    pub args: Vec<ArgSpec>,
    pub buffers: Vec<Buffer>,
    pub initial: Vec<(String, Vec<i64>)>,
    pub allocas: Vec<Alloca>,
    /// The thread id as `i32` (the `%tid` parameter or `@pllvm.thread_id()`).
    pub tid: Value,
    /// The uniform `i32` parameter `%n`.
    pub uniform: Value,
    /// `(tid mod max_threads) * slice_len` as `i64`: the start of the lane's slices
    /// (`tid mod max_threads`, its first element, with
    /// [`crate::GenConfig::thread_indexed`]).
    pub slice_base: Option<Value>,
    /// `zext(tid)` as `i64`, when the program has memory.
    pub tid_wide: Option<Value>,
    pub func: FuncId,
}

impl<'c> Builder<'c> {
    /// Starts the module: types, buffers, parameters and the entry block.
    pub(super) fn new(seed: u64, cfg: &'c GenConfig) -> Self {
        let mut module = Module::default();
        let mut int_types = vec![TypeTable::I1, TypeTable::I8, TypeTable::I32, TypeTable::I64];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let odd = rng.gen_range(2..=63);
        int_types.push(module.types.int(odd));
        if cfg.wide_ints {
            int_types.push(module.types.int(128));
            let wide = rng.gen_range(65..=127);
            int_types.push(module.types.int(wide));
        }
        int_types.dedup();
        let float_types = if cfg.floats {
            vec![TypeTable::F32, TypeTable::F64]
        } else {
            Vec::new()
        };
        let func = module.functions.next_key();
        let mut b = Builder {
            rng,
            cfg,
            module,
            body: Body::default(),
            layout: Vec::new(),
            cur: Block::from_u32(0),
            entry: Block::from_u32(0),
            facts: SecondaryMap::with_default(Facts::default()),
            predicated: SecondaryMap::with_default(false),
            scopes: vec![Vec::new()],
            exits: Vec::new(),
            counters: Vec::new(),
            blocks_left: cfg.max_blocks.max(2),
            cycle_depth: 0,
            names: 0,
            stats: Stats::default(),
            int_types,
            float_types,
            builtins: Vec::new(),
            args: Vec::new(),
            buffers: Vec::new(),
            initial: Vec::new(),
            allocas: Vec::new(),
            tid: Value::from_u32(0),
            uniform: Value::from_u32(0),
            slice_base: None,
            tid_wide: None,
            func,
        };
        b.module.functions.push(FunctionData {
            name: "kernel".into(),
            ret_ty: TypeTable::I64,
            params: Vec::new(),
            cconv: None,
            variadic: false,
            convergent: false,
            body: None,
        });
        b.make_params();
        b.make_buffers();
        let entry = b.new_block("entry");
        b.entry = entry;
        b.place(entry);
        b.make_entry();
        b
    }

    /// Generates the body and returns the finished program.
    pub(super) fn finish_program(mut self) -> Generated {
        let n = self.rng.gen_range(2..=5);
        self.gen_seq(n, 0);
        self.make_return();
        let mut body = std::mem::take(&mut self.body);
        body.layout = std::mem::take(&mut self.layout);
        self.module.functions[self.func].body = Some(body);
        let buffers = self
            .buffers
            .iter()
            .map(|buf| {
                let g = &self.module.globals[buf.global];
                BufferSpec {
                    name: g.name.clone(),
                    elem_bits: self.module.types.int_width(buf.elem).unwrap_or(64),
                    len: buf.len,
                    slice: buf.sliced.then_some(u64::from(self.cfg.slice_len)),
                }
            })
            .collect();
        Generated {
            module: self.module,
            func: self.func,
            args: self.args,
            globals: self.initial,
            buffers,
            max_threads: self.cfg.max_threads,
            stats: self.stats,
        }
    }

    // ---- names, blocks, values -------------------------------------------------

    /// A fresh number for names (every name in the function is unique).
    pub(super) fn fresh(&mut self) -> u32 {
        self.names += 1;
        self.names
    }

    /// A new, not yet placed block named `name` (a fresh suffix keeps names unique),
    /// ending in `unreachable` until it is terminated.
    pub(super) fn new_block(&mut self, stem: &str) -> Block {
        self.blocks_left = self.blocks_left.saturating_sub(1);
        let name = if stem == "entry" {
            stem.to_string()
        } else {
            format!("{stem}{}", self.fresh())
        };
        self.body.blocks.push(BlockData {
            name,
            predicate: None,
            phis: Vec::new(),
            body: Vec::new(),
            term: Terminator::Unreachable,
        })
    }

    /// Appends `block` to the layout and makes it the block being filled.
    pub(super) fn place(&mut self, block: Block) {
        self.layout.push(block);
        self.cur = block;
    }

    /// Ends the current block with `term`.
    pub(super) fn terminate(&mut self, term: Terminator) {
        self.body.blocks[self.cur].term = term;
    }

    /// The type of `v`.
    pub(super) fn ty(&self, v: Value) -> Ty {
        self.body.values[v].ty
    }

    /// The width of an integer type (1 for anything else, never reached).
    pub(super) fn width(&self, ty: Ty) -> u32 {
        self.module.types.int_width(ty).unwrap_or(1)
    }

    /// An integer constant of `ty` with the low bits of `bits`.
    pub(super) fn const_int(&mut self, ty: Ty, bits: u128) -> Value {
        let w = self.width(ty);
        let v = if w >= 128 {
            bits
        } else {
            bits & ((1u128 << w) - 1)
        };
        let c = ConstData::Int(BigUint::from(v));
        let v = self.body.add_const(ty, c);
        self.facts[v] = Facts {
            block: None,
            local: false,
            everywhere: true,
        };
        v
    }

    /// A float constant of `ty` (`float` or `double`).
    pub(super) fn const_float(&mut self, ty: Ty, x: f64) -> Value {
        let bits = if matches!(self.module.types.get(ty), TypeData::F32) {
            u64::from((x as f32).to_bits())
        } else {
            x.to_bits()
        };
        let v = self.body.add_const(ty, ConstData::Float(bits));
        self.facts[v] = Facts {
            block: None,
            local: false,
            everywhere: true,
        };
        v
    }

    /// The pointer constant `@g`.
    pub(super) fn const_global(&mut self, g: GlobalId) -> Value {
        let v = self.body.add_const(TypeTable::PTR, ConstData::Global(g));
        self.facts[v] = Facts {
            block: None,
            local: false,
            everywhere: true,
        };
        v
    }

    /// Whether `v` may be used by a command of the current block.
    pub(super) fn usable(&self, v: Value) -> bool {
        let f = self.facts[v];
        !f.local || f.block == Some(self.cur)
    }

    /// Every value a command of the current block may use, of type `ty`.
    pub(super) fn pool_of(&self, ty: Ty) -> Vec<Value> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| self.ty(v) == ty && self.usable(v))
            .collect()
    }

    /// Every value that may flow along an edge out of the current block: what a
    /// phi of a successor may take from it.
    pub(super) fn snapshot(&self) -> Vec<Value> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| !self.facts[v].local)
            .collect()
    }

    /// Makes `v` available to what the current scope dominates.
    pub(super) fn offer(&mut self, v: Value) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v);
        }
    }

    /// Adds a command without result (a store) to the current block.
    pub(super) fn emit_store(&mut self, kind: InstKind) {
        let inst = self.body.insts.push(InstData {
            kind,
            result: None,
            total: false,
        });
        self.body.blocks[self.cur].body.push(inst);
    }

    /// Adds a command with a result to the current block and returns the result.
    /// Its facts follow from the block's predicate, `total` and its operands.
    pub(super) fn emit(&mut self, kind: InstKind, ty: Ty, stem: &str, total: bool) -> Value {
        let operands = kind.operands();
        let predicated = self.predicated[self.cur];
        let local = match kind {
            InstKind::Mask => false,
            _ if total => operands.iter().any(|&o| self.facts[o].local),
            _ => predicated,
        };
        let everywhere = match kind {
            InstKind::Mask => true,
            _ if total => operands.iter().all(|&o| self.facts[o].everywhere),
            _ => self.cur == self.entry,
        };
        let inst = self.body.insts.push(InstData {
            kind,
            result: None,
            total,
        });
        self.body.blocks[self.cur].body.push(inst);
        let name = format!("{stem}{}", self.fresh());
        let v = self.body.values.push(ValueData {
            ty,
            name: Some(name),
            def: ValueDef::Inst(inst),
        });
        self.body.insts[inst].result = Some(v);
        self.facts[v] = Facts {
            block: Some(self.cur),
            local,
            everywhere,
        };
        v
    }

    /// Adds a phi of type `ty` to `block` with the given incoming pairs and shadow.
    pub(super) fn phi(
        &mut self,
        block: Block,
        ty: Ty,
        incoming: Vec<(Value, Block)>,
        shadow: Option<Value>,
        stem: &str,
    ) -> (Inst, Value) {
        let lane_local_shadow = shadow.is_some() && self.cfg.lane_local;
        let inst = self.body.insts.push(InstData {
            kind: InstKind::Phi {
                ty,
                incoming,
                shadow,
            },
            result: None,
            total: false,
        });
        self.body.blocks[block].phis.push(inst);
        let name = format!("{stem}{}", self.fresh());
        let v = self.body.values.push(ValueData {
            ty,
            name: Some(name),
            def: ValueDef::Inst(inst),
        });
        self.body.insts[inst].result = Some(v);
        self.facts[v] = Facts {
            block: Some(block),
            local: lane_local_shadow,
            everywhere: false,
        };
        (inst, v)
    }

    /// Adds the incoming pair `(value, from)` to phi `inst`.
    pub(super) fn add_incoming(&mut self, inst: Inst, value: Value, from: Block) {
        if let InstKind::Phi { incoming, .. } = &mut self.body.insts[inst].kind {
            incoming.push((value, from));
        }
    }

    /// The declaration of builtin `name` (without `@`), declared on first use.
    pub(super) fn builtin(&mut self, name: &'static str, ret_ty: Ty, param_tys: &[Ty]) -> FuncId {
        if let Some(&(_, f)) = self.builtins.iter().find(|(n, _)| *n == name) {
            return f;
        }
        let params = param_tys
            .iter()
            .map(|&ty| Param {
                ty,
                attrs: Vec::new(),
                value: Value::from_u32(0),
            })
            .collect();
        let f = self.module.functions.push(FunctionData {
            name: name.into(),
            ret_ty,
            params,
            cconv: None,
            variadic: false,
            convergent: false,
            body: None,
        });
        self.builtins.push((name, f));
        f
    }

    // ---- setup -----------------------------------------------------------------

    fn add_param(&mut self, name: &str, ty: Ty, arg_ty: ArgTy, kind: ArgKind) -> Value {
        let index = self.module.functions[self.func].params.len() as u32;
        let v = self.body.values.push(ValueData {
            ty,
            name: Some(name.into()),
            def: ValueDef::Param(index),
        });
        self.facts[v] = Facts {
            block: None,
            local: false,
            everywhere: true,
        };
        self.module.functions[self.func].params.push(Param {
            ty,
            attrs: Vec::new(),
            value: v,
        });
        self.args.push(ArgSpec {
            name: name.into(),
            ty: arg_ty,
            kind,
        });
        self.offer(v);
        v
    }

    /// `%tid` (lane-local only), `%n` (uniform), `%x`, `%y` (per lane), `%d` with
    /// floats, `%w` with wide integers.
    fn make_params(&mut self) {
        if self.cfg.lane_local {
            self.tid = self.add_param("tid", TypeTable::I32, ArgTy::Int(32), ArgKind::ThreadId);
        }
        self.uniform = self.add_param("n", TypeTable::I32, ArgTy::Int(32), ArgKind::Uniform);
        self.add_param("x", TypeTable::I32, ArgTy::Int(32), ArgKind::PerLane);
        self.add_param("y", TypeTable::I64, ArgTy::Int(64), ArgKind::PerLane);
        if self.cfg.floats {
            self.add_param("d", TypeTable::F64, ArgTy::Double, ArgKind::PerLane);
        }
        if self.cfg.wide_ints {
            let i128 = self.module.types.int(128);
            self.add_param("w", i128, ArgTy::Int(128), ArgKind::PerLane);
        }
    }

    /// One or two read-only buffers and one or two sliced (written) buffers.
    fn make_buffers(&mut self) {
        if !self.cfg.memory {
            return;
        }
        let slice = u64::from(self.cfg.slice_len.max(1).next_power_of_two());
        let lanes = u64::from(self.cfg.max_threads.max(1).next_power_of_two());
        let n_read = self.rng.gen_range(1..=2);
        let n_write = self.rng.gen_range(1..=2);
        for k in 0..n_read + n_write {
            let sliced = k >= n_read;
            let elem = if self.rng.gen_bool(0.5) {
                TypeTable::I32
            } else {
                TypeTable::I64
            };
            let len = if sliced {
                lanes * slice
            } else {
                1u64 << self.rng.gen_range(2..=5)
            };
            let name = if sliced {
                format!("out{k}")
            } else {
                format!("in{k}")
            };
            let ty = self.module.types.intern(TypeData::Array(len, elem));
            let global = self.module.globals.push(GlobalData {
                name: name.clone(),
                ty,
                addrspace: 0,
                constant: false,
                init: Some(GlobalInit::Zero),
                linkage: Vec::new(),
                align: None,
            });
            let bits = self.width(elem);
            let contents = (0..len)
                .map(|_| {
                    let v: i64 = match self.rng.gen_range(0..3) {
                        0 => self.rng.gen_range(-8..8),
                        1 => self.rng.gen_range(0..256),
                        _ => self.rng.r#gen(),
                    };
                    if bits == 32 { i64::from(v as i32) } else { v }
                })
                .collect();
            self.initial.push((name, contents));
            self.buffers.push(Buffer {
                global,
                elem,
                len,
                sliced,
            });
        }
    }

    /// The entry block: the thread id, the lane's slice base, allocas and their
    /// initializing stores, then a few commands.
    fn make_entry(&mut self) {
        if !self.cfg.lane_local {
            let f = self.builtin("pllvm.thread_id", TypeTable::I32, &[]);
            self.tid = self.emit(
                InstKind::Call {
                    callee: f,
                    ret_ty: TypeTable::I32,
                    args: Vec::new(),
                    bundles: Vec::new(),
                },
                TypeTable::I32,
                "tid",
                false,
            );
            self.offer(self.tid);
        }
        if self.cfg.memory {
            let tid64 = self.emit(
                InstKind::Cast {
                    op: pllvm_semantics::ir::CastOp::ZExt,
                    flags: Default::default(),
                    from: TypeTable::I32,
                    arg: self.tid,
                    to: TypeTable::I64,
                },
                TypeTable::I64,
                "tid.wide",
                false,
            );
            let lanes = u64::from(self.cfg.max_threads.max(1).next_power_of_two());
            let m = self.const_int(TypeTable::I64, u128::from(lanes - 1));
            let lane = self.binary(
                pllvm_semantics::ir::BinOp::And,
                TypeTable::I64,
                tid64,
                m,
                "lane",
                false,
            );
            let slice = u64::from(self.cfg.slice_len.max(1).next_power_of_two());
            self.tid_wide = Some(tid64);
            self.slice_base = Some(if self.cfg.thread_indexed {
                lane
            } else {
                let s = self.const_int(TypeTable::I64, u128::from(slice));
                self.binary(
                    pllvm_semantics::ir::BinOp::Mul,
                    TypeTable::I64,
                    lane,
                    s,
                    "slice",
                    false,
                )
            });
            let n_alloca = self.rng.gen_range(0..=2);
            for _ in 0..n_alloca {
                self.make_alloca(slice);
            }
        }
        let n = self.rng.gen_range(1..=self.cfg.max_insts_per_block.max(1));
        for _ in 0..n {
            self.gen_inst();
        }
    }

    /// `%a = alloca [slice x i64]` and a store to each element.
    fn make_alloca(&mut self, slice: u64) {
        let arr = self
            .module
            .types
            .intern(TypeData::Array(slice, TypeTable::I64));
        let ptr = self.emit(
            InstKind::Alloca {
                ty: arr,
                count: None,
                align: Some(8),
            },
            TypeTable::PTR,
            "a",
            false,
        );
        for k in 0..slice {
            let idx = self.const_int(TypeTable::I64, u128::from(k));
            let at = self.gep(TypeTable::I64, ptr, idx);
            let value = self.operand(TypeTable::I64);
            self.emit_store(InstKind::Store {
                ty: TypeTable::I64,
                value,
                ptr: at,
                align: None,
                volatile: false,
            });
        }
        self.allocas.push(Alloca { ptr });
    }

    /// The final block: an `i64` checksum of some values, returned.
    fn make_return(&mut self) {
        let mut acc = self.operand(TypeTable::I64);
        let n = self.rng.gen_range(1..=4);
        for _ in 0..n {
            let candidates: Vec<Value> = self
                .scopes
                .iter()
                .flatten()
                .copied()
                .filter(|&v| self.usable(v) && !self.module.types.is_ptr(self.ty(v)))
                .collect();
            if candidates.is_empty() {
                break;
            }
            let pick = candidates[self.rng.gen_range(0..candidates.len())];
            let wide = self.convert(pick, TypeTable::I64);
            let op = if self.rng.gen_bool(0.5) {
                pllvm_semantics::ir::BinOp::Xor
            } else {
                pllvm_semantics::ir::BinOp::Add
            };
            acc = self.binary(op, TypeTable::I64, acc, wide, "sum", false);
        }
        self.terminate(Terminator::Ret(Some(acc)));
    }
}
