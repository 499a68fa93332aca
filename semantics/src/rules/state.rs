//! The execution state σ = (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) of Def. 3, the initial state
//! of Def. 4, and the small syntactic domains of Fig. 4.2 (`ℓ_next`, `i`).

use crate::column::{BitColumn, BitKind, Column};
use crate::entity::EntityRef;
use crate::ir::{Block, Value, ValueDef};
use crate::memory::Memory;
use crate::ops::{ConstPlaces, const_value};
use crate::persistent::PVec;
use crate::rules::program::Program;
use crate::value::{ObjectId, Pointer, Val};
use std::borrow::Cow;

/// The semantic interpretation 𝓘 (§4.5): what passive execution does to a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Interp {
    /// FR(EEZING): passive execution leaves variables unchanged.
    Freezing,
    /// OBL(IVIOUS): passive execution sets variables to ⊤ (what SIMD lanes do).
    Oblivious,
}

impl Interp {
    /// `FR` or `OBL`, as the thesis writes it.
    pub fn short(self) -> &'static str {
        match self {
            Interp::Freezing => "FR",
            Interp::Oblivious => "OBL",
        }
    }
}

/// The next block `ℓ_next ::= ℓ | ⊤ | □(r)` of one lane (Fig. 4.2, Def. 3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Next {
    /// A block label: the branch target.
    Block(Block),
    /// ⊤: the lane accepts any successor of its incoming block.
    Any,
    /// □(r): the lane has terminated with return value `r` (⊤ for `ret void`).
    Done(Val),
}

impl Next {
    /// Whether the lane has terminated.
    pub fn is_done(&self) -> bool {
        matches!(self, Next::Done(_))
    }
}

/// The successor index `i ::= ℕ | □(r) | ⊤` of one lane (Fig. 4.2), the result of evalterm.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Succ {
    /// Take CFG edge number `n` out of the scheduled block.
    Index(u32),
    /// Terminate with return value `r`.
    Ret(Val),
    /// ⊤: any successor (what a lane with amsk = 0 yields).
    Any,
}

/// Δ^W: the variable mapping of every lane (Def. 3), stored column-wise: the values
/// of one variable across all lanes are adjacent (`vec(Δ^W)(id)` of Def. 9 is a slice).
///
/// Constants are stored too (broadcast to every lane), so that `eval^W Δ^W val` is a
/// lookup for both `id` and `cnst` (§4.6). With strict mode on, the definition
/// mask of Def. 10 is kept beside each value.
///
/// Each value's lanes are a [`Column`]: unboxed bit patterns for integers up to
/// 64 bits and floats, [`Val`]s otherwise (see [`crate::column`]). An `Env` holds
/// Δ^W and nothing else: the buffers a step reuses belong to the machine
/// ([`Scratch`]), so equality, hashing and cloning are the derived ones.
///
/// The columns (and definition masks) are kept in persistent vectors
/// ([`crate::persistent::PVec`]): cloning an `Env` is O(1), a write copies only
/// the path to its column when the clone shares it, and hashing reuses the
/// digests of the unchanged parts. So copying and fingerprinting a state after
/// one block step costs what the step changed, not the size of the program
/// (what exhaustive exploration does at every state it visits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Env {
    width: usize,
    columns: PVec<Column>,
    defined: Option<PVec<Vec<bool>>>,
    strict: bool,
}

/// The scratch space of a machine: buffers that one step fills and a later step
/// reuses, so that executing a block allocates nothing per command. Not part of
/// the state σ of Def. 3 (a [`State`] neither holds nor compares them): whoever
/// steps a state owns one (the interpreter's machine, or a fresh one for a step
/// on a copy) and passes it by `&mut` to [`crate::rules::step::lss_w_step`].
///
/// [`Exec::Reference`](crate::rules::Exec::Reference) uses only the per-step
/// vectors and the phi buffer; the column buffers and the activation words are
/// for the fast forms of [`crate::fast`].
#[derive(Debug, Default)]
pub struct Scratch {
    /// Spare columns of [`Val`]s.
    pub(crate) vals: Vec<Vec<Val>>,
    /// Spare bit columns.
    pub(crate) bits: Vec<BitColumn>,
    /// The phis a step resolves, between evalphi and the parallel copy.
    pub(crate) phis: Vec<ResolvedPhi>,
    /// The per-step vectors of an earlier step.
    pub(crate) step: StepBuffers,
    /// The last activation and its lanes as words.
    pub(crate) lane_masks: LaneMasks,
}

/// An activation and its lanes as words (`!0` active, `0` passive), kept while
/// the activation stays the same: the commands of a block mostly share amsk^W,
/// and the [UPD-ENV] fast form selects bit patterns with the words.
#[allow(
    rustdoc::broken_intra_doc_links,
    reason = "a rule citation, not a link"
)]
#[derive(Debug, Default)]
pub struct LaneMasks {
    of: Vec<bool>,
    words: Vec<u64>,
}

impl LaneMasks {
    /// The lanes of `active` as words, computed again only when `active` changed.
    #[inline]
    pub fn words_of(&mut self, active: &[bool]) -> &[u64] {
        if self.of != active {
            self.of.clear();
            self.of.extend_from_slice(active);
            self.words.clear();
            self.words
                .extend(active.iter().map(|&a| u64::from(a).wrapping_neg()));
        }
        &self.words
    }
}

/// A phi's result, its new column and definition mask, between evalphi and the
/// parallel copy.
pub(crate) type ResolvedPhi = (Value, Column, Option<Vec<bool>>);

/// Spare per-step vectors (cmsk^W, pmsk^W, amsk^W, i^W) of an earlier step, for
/// [`crate::rules::step::bls_w_step`] to fill again instead of allocating.
#[derive(Debug, Default)]
pub struct StepBuffers {
    /// For cmsk^W.
    pub cmask: Vec<bool>,
    /// For pmsk^W.
    pub pmask: Vec<Option<bool>>,
    /// For amsk^W.
    pub active: Vec<bool>,
    /// For i^W.
    pub succ: Vec<Succ>,
}

impl Scratch {
    /// A scratch column of `width` lanes stored like `like` (its lanes are
    /// unspecified), from the spare buffers if one is left.
    #[inline]
    pub(crate) fn take_like(&mut self, like: &Column, width: usize) -> Column {
        match like {
            Column::Vals(_) => Column::Vals(self.take_vals(width)),
            Column::Bits(b) => {
                let mut bits = self.take_bits(width);
                bits.reshape(b.kind, width);
                Column::Bits(bits)
            }
        }
    }

    /// A scratch column of `width` [`Val`]s (their contents are unspecified).
    #[inline]
    pub(crate) fn take_vals(&mut self, width: usize) -> Vec<Val> {
        match self.vals.pop() {
            Some(mut column) => {
                column.resize(width, Val::Undef);
                column
            }
            None => vec![Val::Undef; width],
        }
    }

    /// A scratch bit column of `width` lanes (kind and lanes unspecified).
    #[inline]
    pub(crate) fn take_bits(&mut self, width: usize) -> BitColumn {
        match self.bits.pop() {
            Some(mut column) => {
                column.reshape(column.kind, width);
                column
            }
            None => BitColumn::undef(BitKind::Int(1), width),
        }
    }

    /// Returns a scratch column to the spare buffers (a handful at most).
    #[inline]
    pub(crate) fn give_back(&mut self, column: Column) {
        match column {
            Column::Vals(v) => self.give_back_vals(v),
            Column::Bits(b) => self.give_back_bits(b),
        }
    }

    /// [`Scratch::give_back`] for a [`Val`] buffer.
    #[inline]
    pub(crate) fn give_back_vals(&mut self, column: Vec<Val>) {
        if self.vals.len() < 8 {
            self.vals.push(column);
        }
    }

    /// [`Scratch::give_back`] for a bit buffer.
    #[inline]
    pub(crate) fn give_back_bits(&mut self, column: BitColumn) {
        if self.bits.len() < 8 {
            self.bits.push(column);
        }
    }

    /// Hands the vectors of a finished step back for reuse by a later step
    /// (their contents do not matter).
    pub fn recycle_step(&mut self, buffers: StepBuffers) {
        self.step = buffers;
    }

    /// The vectors a finished step handed back, or new empty ones.
    #[inline]
    pub(crate) fn take_step_buffers(&mut self) -> StepBuffers {
        std::mem::take(&mut self.step)
    }

    /// An empty vector for the phis a step resolves (its capacity kept from
    /// earlier steps).
    #[inline]
    pub(crate) fn take_phi_buffer(&mut self) -> Vec<ResolvedPhi> {
        std::mem::take(&mut self.phis)
    }

    /// Hands the (emptied) phi vector back for the next step.
    #[inline]
    pub(crate) fn give_phi_buffer(&mut self, mut phis: Vec<ResolvedPhi>) {
        phis.clear();
        self.phis = phis;
    }
}

impl Env {
    /// An environment for `program` with W = `width` lanes: parameters take
    /// `args[n][lane]`, constants their value in every lane, every other variable ⊤.
    /// With `strict`, definition masks (Def. 10) are tracked: constants and
    /// parameters are defined in every lane, results nowhere yet. With `track`
    /// alone the masks are kept (for observers, whose notion of "the lanes that
    /// define a value" is the definition mask, §6.2) but uses are not checked.
    pub fn new(
        program: &Program<'_>,
        width: usize,
        args: &[Vec<Val>],
        global_ptr: &dyn Fn(crate::ir::GlobalId) -> Val,
        strict: bool,
        track: bool,
    ) -> Env {
        let body = program.body;
        let module = program.module;
        // The bounds of a constant `getelementptr inbounds`: a global's object is
        // as large as its type (at least one byte, as it is allocated).
        let object_size = |o: ObjectId| {
            module
                .globals
                .iter()
                .find_map(|(g, data)| match global_ptr(g) {
                    Val::Ptr(Pointer {
                        object: Some(x), ..
                    }) if x == o => Some(module.types.size_of(data.ty).max(1)),
                    _ => None,
                })
        };
        let places = ConstPlaces {
            global_ptr,
            object_size: &object_size,
        };
        let mut columns = Vec::with_capacity(body.values.len());
        let mut defined = (strict || track).then(|| Vec::with_capacity(body.values.len()));
        for (_, data) in body.values.iter() {
            let ty = program.types().get(data.ty);
            let (column, is_defined) = match &data.def {
                ValueDef::Param(n) => (
                    match args.get(*n as usize) {
                        Some(lanes) => Column::from_vals(ty, lanes.clone()),
                        None => Column::undef(ty, width),
                    },
                    true,
                ),
                ValueDef::Const(c) => (
                    Column::from_vals(
                        ty,
                        vec![const_value(program.types(), data.ty, c, &places); width],
                    ),
                    true,
                ),
                ValueDef::Inst(_) => (Column::undef(ty, width), false),
            };
            columns.push(column);
            if let Some(d) = defined.as_mut() {
                d.push(vec![is_defined; width]);
            }
        }
        Env {
            width,
            columns: PVec::from_vec(columns),
            defined: defined.map(PVec::from_vec),
            strict,
        }
    }

    /// W, the number of lanes.
    pub fn width(&self) -> usize {
        self.width
    }

    /// `vec(Δ^W)(id)` (Def. 9): the value of `value` in every lane, as [`Val`]s
    /// (borrowed when the column holds them; see [`Env::column`] for the stored form).
    pub fn get(&self, value: Value) -> Cow<'_, [Val]> {
        self.columns.get(value.index()).vals()
    }

    /// `Δ^W(id)(τ)`: the value of `value` in lane τ.
    pub fn lane(&self, value: Value, lane: usize) -> Val {
        self.columns.get(value.index()).lane(lane)
    }

    /// The column of `value` as it is stored.
    pub fn column(&self, value: Value) -> &Column {
        self.columns.get(value.index())
    }

    /// Replaces the whole column of `value` (the parallel copy of the phis); the
    /// old column is returned (for reuse as a buffer).
    #[inline]
    pub(crate) fn set_column(&mut self, value: Value, column: Column) -> Column {
        std::mem::replace(self.columns.get_mut(value.index()), column)
    }

    /// Sets lane τ of `value` (see [`Column::set_lane`]).
    pub(crate) fn set_lane(&mut self, value: Value, lane: usize, v: Val) {
        self.columns.get_mut(value.index()).set_lane(lane, v);
    }

    /// The column of `value` for updating in place (the [UPD-ENV] fast form).
    #[allow(
        rustdoc::broken_intra_doc_links,
        reason = "a rule citation, not a link"
    )]
    #[inline]
    pub(crate) fn column_mut(&mut self, value: Value) -> &mut Column {
        self.columns.get_mut(value.index())
    }

    /// Whether strict mode is on: uses not covered by their definition mask are
    /// undefined behaviour (Def. 11.3).
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The definition mask of `value` (Def. 10), `None` when masks are not tracked.
    pub fn defined(&self, value: Value) -> Option<&[bool]> {
        self.defined
            .as_ref()
            .map(|d| d.get(value.index()).as_slice())
    }

    /// Replaces the definition mask of `value` (when masks are tracked).
    pub(crate) fn set_defined(&mut self, value: Value, mask: Vec<bool>) {
        if let Some(d) = self.defined.as_mut() {
            *d.get_mut(value.index()) = mask;
        }
    }
}

/// σ = (𝕄, Δ^W, ℓ_in^W, ℓ_next^W) (Def. 3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// 𝕄, shared by all lanes.
    pub mem: Memory,
    /// Δ^W.
    pub env: Env,
    /// ℓ_in^W: the block each lane executed last (`None` is ⊥).
    pub incoming: Vec<Option<Block>>,
    /// ℓ_next^W.
    pub next: Vec<Next>,
}

impl State {
    /// The initial state of Def. 4: every lane has ℓ_next = entry and ℓ_in = ⊥;
    /// 𝕄 and Δ^W are given.
    pub fn initial(entry: Block, mem: Memory, env: Env) -> State {
        let width = env.width();
        State {
            mem,
            env,
            incoming: vec![None; width],
            next: vec![Next::Block(entry); width],
        }
    }

    /// W.
    pub fn width(&self) -> usize {
        self.env.width()
    }

    /// Whether every lane has terminated (`∀τ. ℓ_next(τ) = □`, Def. 5).
    pub fn all_done(&self) -> bool {
        self.next.iter().all(Next::is_done)
    }
}
