//! The seeded random P-LLVM program generator used by the property tests.
//!
//! [`generate`] builds one function `@kernel` of P-LLVM (thesis §4.1, Fig. 4.2,
//! Def. 1) directly through the IR arenas, from a `u64` seed and a [`GenConfig`].
//! The same seed and configuration always give the same module (the generator
//! draws from `ChaCha8Rng`, whose stream is fixed across platforms).
//!
//! # What the programs contain
//! Reducible and (on request) irreducible CFGs; nested loops with several exits;
//! `switch`es; branches on the thread id, on loaded data, on uniform arguments,
//! on loop counters and on other values; phis, shadow phis (§4.8), block
//! predicates (Def. 7), `total` commands ([W-CMD-TOTAL]), `mask()`
//! ([W-CMD-MASK]), the horizontal builtins of Fig. 4.15; global buffers, allocas,
//! gathers and scatters (§4.9.1); integers of widths 1-128 and floats.
//!
//! # Guarantees (by construction)
//! - **Well-formed** (§4.10): every definition dominates its uses. Values cross
//!   block boundaries only when their defining block dominates the user (the pool
//!   is scoped by the structure that built the CFG) or through phis. Block
//!   predicates satisfy Def. 11.1 (an `i1` of a dominating block, or a `total`
//!   `icmp` at the head of the block itself). `mask()` is never `total`, shadow
//!   operands have the phi's type and dominate the phi.
//! - **Terminating**: every cycle is guarded by a counter. A loop has a counter phi
//!   `%iN` and its latch leaves unless `icmp ult %iN.next, %kN`, where `%kN` is at most
//!   `max_trip_count` (and may depend on the thread id, loaded data or a uniform
//!   argument, so loops diverge). An irreducible region is a two-entry cycle
//!   `A ⇄ B` whose two cross edges both carry the same counter test. So every lane's
//!   own path is finite and any schedule that advances some lane each step ends.
//! - **No undefined behaviour under FR** (§4.5): division only by non-zero
//!   divisors (`or x, 1`; positive ones for signed division), shift amounts below
//!   the width, no poison-making flags, no float-to-int conversions but `bitcast`;
//!   every access in bounds (power-of-two buffers, index `and`-masked); stores go to
//!   the lane's own slice of a buffer (`lane * slice + (x & (slice - 1))`), so
//!   scatters are disjoint for W ≤ `max_threads`; allocas are initialized before
//!   they are read; block predicates and branch conditions are defined in every
//!   lane that needs them; horizontal builtins only see values defined in all lanes.
//!   A block with a predicate ends in an unconditional `br` (a lane with a false
//!   predicate takes "any" successor, [PC-ND-BRANCH], which is then the only one),
//!   or, with [`GenConfig::predicated_branches`], in an if-then branch whose
//!   condition is computed in the block itself (an active lane defines it).
//!   Under OBLIVIOUS a divergent loop makes its values ⊤ (§4.10, Fig. 4.16b), so
//!   OBL runs may be undefined.
//! - **Acyclic** programs ([`GenConfig::acyclic`]): no cycles, predicated blocks
//!   that may branch (an if-then), and no lane reads another lane's slice of a
//!   written buffer.
//! - **Lane-local** programs ([`GenConfig::lane_local`]): no `mask()`, no
//!   horizontal builtins, and the thread id is the per-lane parameter `%tid`
//!   (instead of `@pllvm.thread_id()`, which a W = 1 run would answer with 0).
//!   Values a passive execution may overwrite (shadow phis; `total` commands over
//!   them) are used only inside their block, and a lane only reads and writes its
//!   own slice of the written buffers. A lane of an FR lock-step run then sees
//!   exactly what it sees when it runs alone with the same inputs.

mod builder;
mod insts;
mod regions;
mod spec;

pub use spec::{ArgKind, ArgSpec, ArgTy, BufferSpec, GenConfig, Generated, InputScalar, Stats};

/// Generates the program of `seed` under `cfg` (deterministic: equal inputs give
/// equal modules).
pub fn generate(seed: u64, cfg: &GenConfig) -> Generated {
    builder::Builder::new(seed, cfg).finish_program()
}
