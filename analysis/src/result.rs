//! The common result of the divergence analyses: a vector shape (thesis §6.1) for
//! every value, terminator, block activation, stack object and loop exit
//! ([`Uniformity`]), which analysis produced it ([`AnalysisKind`]), the inputs every
//! analysis starts from ([`InitShapes`], Listing 1), and why a function was not
//! analysed ([`AnalysisError`]). The dispatcher that runs an analysis is
//! [`crate::uniformity`].

use crate::sa_shape::SaShape;
use crate::shape::Shape;
use pllvm_semantics::entity::SecondaryMap;
use pllvm_semantics::ir::{Block, Body, FuncId, FunctionData, Inst, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Which analysis to run. The default, [`AnalysisKind::Best`], is what a consumer
/// that does not choose gets (the transforms, the native backend).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum AnalysisKind {
    /// Thesis Ch. 6-7.
    Thesis,
    /// POPL'21 §4-6.
    Popl,
    /// LLVM's "Convergence and Uniformity" (any CFG, irreducible ones included).
    Llvm,
    /// Thesis Ch. 6-7 with the stride-alignment lattice of Ch. 10.
    Sa,
    /// The meet of the sound analyses `thesis`, `popl` and `sa` (a value,
    /// terminator or block activation is uniform if one of them proves it), so at
    /// least as precise as each and sound as they are; `llvm` alone on an
    /// irreducible CFG, which the other three do not analyse. The default of the
    /// transforms and the native backend.
    #[default]
    Best,
}

impl AnalysisKind {
    /// Every analysis of its own, in the order `--analysis all` runs them
    /// ([`AnalysisKind::Best`], their meet, is not among them).
    pub const ALL: [AnalysisKind; 4] = [
        AnalysisKind::Thesis,
        AnalysisKind::Popl,
        AnalysisKind::Llvm,
        AnalysisKind::Sa,
    ];

    /// The name `--analysis` and the corpus (`; expect[NAME]:`) use.
    pub fn name(self) -> &'static str {
        match self {
            AnalysisKind::Thesis => "thesis",
            AnalysisKind::Popl => "popl",
            AnalysisKind::Llvm => "llvm",
            AnalysisKind::Sa => "sa",
            AnalysisKind::Best => "best",
        }
    }

    /// Whether a corpus `; expect:` without an analysis name applies to this
    /// analysis. Those expectations were derived for the thesis and POPL'21
    /// analyses (activation, stack objects, P-LLVM commands); `llvm` makes no claim
    /// about activation or stack objects and is checked only by `; expect[llvm]:`
    /// (and, like every analysis, against every `; run:`); `sa` may prove uniform
    /// what those expectations call varying, and is checked by `; expect[sa]:`.
    pub fn takes_unnamed_expectations(self) -> bool {
        !matches!(
            self,
            AnalysisKind::Llvm | AnalysisKind::Sa | AnalysisKind::Best
        )
    }

    /// The analysis called `name` (one of [`AnalysisKind::ALL`], or `best`).
    pub fn parse(name: &str) -> Option<AnalysisKind> {
        AnalysisKind::ALL
            .into_iter()
            .chain([AnalysisKind::Best])
            .find(|k| k.name() == name)
    }
}

impl std::fmt::Display for AnalysisKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `InitShapes` (Listing 1): the shapes the user gives before the analysis runs.
/// In whole-function vectorization these are the shapes of the parameters
/// (thesis §6.4, "Walkthrough"). Thread-id builtins are always varying; that is
/// their transformer, not an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitShapes {
    /// One shape per parameter, in parameter order.
    pub params: Vec<Shape>,
}

impl InitShapes {
    /// Every parameter varying: the safe default for arguments nobody vouches for.
    pub fn all_varying(func: &FunctionData) -> Self {
        InitShapes {
            params: vec![Shape::Varying; func.params.len()],
        }
    }

    /// Every parameter uniform (as for a GPU kernel's arguments).
    pub fn all_uniform(func: &FunctionData) -> Self {
        InitShapes {
            params: vec![Shape::Uniform; func.params.len()],
        }
    }

    /// The parameters named in `uniform` (without `%`, or as a parameter number)
    /// uniform, every other one varying.
    pub fn with_uniform(func: &FunctionData, uniform: &[String]) -> Result<Self, AnalysisError> {
        let mut init = InitShapes::all_varying(func);
        let body = func.body.as_ref();
        for name in uniform {
            let name = name.trim().trim_start_matches('%');
            if name.is_empty() {
                continue;
            }
            let by_name = func.params.iter().position(|p| {
                body.and_then(|b| b.value_name(p.value))
                    .is_some_and(|n| n == name)
            });
            let index = by_name.or_else(|| {
                name.parse::<usize>()
                    .ok()
                    .filter(|&n| n < func.params.len())
            });
            match index {
                Some(n) => init.params[n] = Shape::Uniform,
                None => {
                    return Err(AnalysisError::UnknownArgument {
                        function: func.name.clone(),
                        name: name.to_string(),
                    });
                }
            }
        }
        Ok(init)
    }
}

/// Why a function was not analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalysisError {
    /// The function has no body (a `declare`).
    NoBody(String),
    /// The CFG is irreducible; both analyses assume reducibility (thesis §2.4,
    /// POPL'21 §3.1). The message names the blocks entering a cycle.
    Irreducible(String),
    /// `--uniform-args` named a parameter the function does not have.
    UnknownArgument {
        /// The function.
        function: String,
        /// The name given.
        name: String,
    },
    /// `--uniform-args` gave `none` (no parameter uniform) beside names.
    NoneWithNames {
        /// The function.
        function: String,
    },
    /// No function of that name.
    NoFunction(String),
}

impl std::fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnalysisError::NoBody(name) => {
                write!(f, "@{name} is only declared: there is no body to analyse")
            }
            AnalysisError::Irreducible(why) => write!(
                f,
                "{why}; the divergence analyses of thesis Ch. 6-7 and POPL'21 assume reducible control flow, so it is not analysed"
            ),
            AnalysisError::UnknownArgument { function, name } => {
                write!(f, "--uniform-args: @{function} has no parameter %{name}")
            }
            AnalysisError::NoneWithNames { function } => write!(
                f,
                "--uniform-args: `none` (no parameter of @{function} uniform) cannot be given with parameter names"
            ),
            AnalysisError::NoFunction(name) => write!(f, "no function @{name}"),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// What one analysis says about one function.
#[derive(Clone, Debug, PartialEq)]
pub struct Uniformity {
    /// The analysis that produced it.
    pub analysis: AnalysisKind,
    /// The function.
    pub func: FuncId,
    /// The shape of every parameter and instruction result (⊥ for constants and
    /// for values the analysis never reached, e.g. in unreachable blocks).
    pub values: SecondaryMap<Value, Shape>,
    /// `sa` only: the stride-alignment shape (thesis Fig. 10.4) of every integer
    /// and pointer parameter and instruction result; empty for other analyses.
    pub strides: BTreeMap<Value, SaShape>,
    /// The shape of each block's terminator: `v` if it may send the active lanes
    /// to different successors (a divergent terminator, §6.3).
    pub terminators: SecondaryMap<Block, Shape>,
    /// The shape of each block's activation (`adep*`, Def. 19): `v` if the lanes
    /// executing the block may not be all lanes of the thread array.
    pub activation: SecondaryMap<Block, Shape>,
    /// The shape of each stack object, by its `alloca` (§6.6): `u` if every lane's
    /// private copy holds the same contents.
    pub allocas: BTreeMap<Inst, Shape>,
    /// Each loop exit (a block outside a loop with a predecessor inside it) and
    /// whether the lanes may reach it from different iterations (`tdep*`, §6.3).
    pub loop_exits: BTreeMap<Block, Shape>,
    /// Blocks where lanes that parted at a divergent terminator may meet
    /// (`sdep*`, sync dependence, §6.3 and Axiom 1).
    pub sync_joins: BTreeSet<Block>,
    /// Loop exits that are temporally divergent (`tdep*`, Axiom 2).
    pub temporal_joins: BTreeSet<Block>,
    /// Headers of loops with a temporally divergent exit.
    pub divergent_loops: BTreeSet<Block>,
}

impl Uniformity {
    /// `self ⊓= other`, entry by entry: what either analysis proves uniform is
    /// uniform; a join or divergent loop stays only if both report it
    /// ([`AnalysisKind::Best`]).
    pub fn meet_with(&mut self, other: &Uniformity) {
        let values: Vec<_> = other.values.iter().map(|(k, &s)| (k, s)).collect();
        for (k, s) in values {
            self.values[k] = self.values[k].min(s);
        }
        let terms: Vec<_> = other.terminators.iter().map(|(k, &s)| (k, s)).collect();
        for (k, s) in terms {
            self.terminators[k] = self.terminators[k].min(s);
        }
        let acts: Vec<_> = other.activation.iter().map(|(k, &s)| (k, s)).collect();
        for (k, s) in acts {
            self.activation[k] = self.activation[k].min(s);
        }
        for (inst, s) in self.allocas.iter_mut() {
            if let Some(o) = other.allocas.get(inst) {
                *s = (*s).min(*o);
            }
        }
        for (b, s) in self.loop_exits.iter_mut() {
            if let Some(o) = other.loop_exits.get(b) {
                *s = (*s).min(*o);
            }
        }
        self.sync_joins.retain(|b| other.sync_joins.contains(b));
        self.temporal_joins
            .retain(|b| other.temporal_joins.contains(b));
        self.divergent_loops
            .retain(|b| other.divergent_loops.contains(b));
    }

    /// The shape of `value`.
    pub fn value(&self, value: Value) -> Shape {
        self.values[value]
    }

    /// The shape of `inst`'s result; for an `alloca` the object's shape; ⊥ for a
    /// command without a result.
    pub fn inst(&self, body: &Body, inst: Inst) -> Shape {
        if let Some(s) = self.allocas.get(&inst) {
            return *s;
        }
        body.insts[inst]
            .result
            .map_or(Shape::Bottom, |v| self.values[v])
    }

    /// The shape of `block`'s terminator.
    pub fn terminator(&self, block: Block) -> Shape {
        self.terminators[block]
    }

    /// Blocks whose terminator is divergent, in arena order.
    pub fn divergent_branches(&self, body: &Body) -> Vec<Block> {
        body.layout
            .iter()
            .copied()
            .filter(|&b| self.terminators[b].is_varying())
            .collect()
    }
}
