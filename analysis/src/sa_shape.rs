//! The stride-alignment lattice `V_sa` of thesis Ch. 10 (Fig. 10.4): its elements
//! [`SaShape`], their order and join, the translation to and from the basic shapes of
//! §6.1, and the modular arithmetic on alignments its transformers use
//! ([`crate::stride`]).

use crate::shape::Shape;
use serde::Serialize;

/// An element of the sa-lattice `V_sa` (Fig. 10.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase", tag = "class")]
pub enum SaShape {
    /// ⊥: no value reached yet.
    #[default]
    Bottom,
    /// `(s, a)`: lane `t` holds `a·k + s·t` (for one `k` per dynamic instance).
    Strided {
        /// The stride `s` (modulo 2^N, as the signed representative).
        stride: i128,
        /// The alignment `a` of the base (0: the base is 0).
        align: u128,
    },
    /// `a`: each lane holds a multiple of `a` (`a > 0`).
    Varying {
        /// The alignment `a`.
        align: u128,
    },
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// 2^n for `n ≤ 64` (the sa-lattice covers integers up to 64 bits and pointers).
pub(crate) fn two_to(n: u32) -> u128 {
    1u128 << n.min(127)
}

/// The power of two in `a`, read modulo 2^n (`pow2(0) = 2^n`).
pub(crate) fn pow2(a: u128, n: u32) -> u128 {
    if a == 0 {
        two_to(n)
    } else {
        two_to(a.trailing_zeros().min(n))
    }
}

/// `s` modulo 2^n as a signed representative in `[-2^(n-1), 2^(n-1))`.
pub(crate) fn signed_rep(s: i128, n: u32) -> i128 {
    let m = 1i128 << n;
    let r = s.rem_euclid(m);
    if r >= m / 2 { r - m } else { r }
}

/// An alignment read modulo 2^n: kept as written unless it exceeds 2^n, then its
/// power of two (2^n itself meaning "the value is 0").
pub(crate) fn norm_align(a: u128, n: u32) -> u128 {
    if a == 0 || a < two_to(n) {
        a
    } else {
        pow2(a, n)
    }
}

/// `a · b` as an alignment modulo 2^n.
pub(crate) fn mul_align(a: u128, b: u128, n: u32) -> u128 {
    match a.checked_mul(b) {
        Some(p) => norm_align(p, n),
        None => two_to((a.trailing_zeros() + b.trailing_zeros()).min(n)),
    }
}

impl SaShape {
    /// The uniform shape `(0, a)`.
    pub fn uniform(align: u128) -> SaShape {
        SaShape::Strided { stride: 0, align }
    }

    /// A varying shape with alignment `a` (`a = 0`, every lane 0, is kept as 2^n).
    pub(crate) fn varying(align: u128, n: u32) -> SaShape {
        SaShape::Varying {
            align: if align == 0 {
                two_to(n)
            } else {
                norm_align(align, n)
            },
        }
    }

    /// The shape read modulo 2^n: the stride's signed representative, the
    /// alignment kept as written unless it exceeds 2^n (then its power of two).
    pub fn normalized(self, n: u32) -> SaShape {
        match self {
            SaShape::Bottom => SaShape::Bottom,
            SaShape::Strided { stride, align } => {
                let align = norm_align(align, n);
                SaShape::Strided {
                    stride: signed_rep(stride, n),
                    align: if align == two_to(n) { 0 } else { align },
                }
            }
            SaShape::Varying { align } => SaShape::varying(align, n),
        }
    }

    /// `threadalign` (Fig. 10.8): the alignment every lane's value has; `None` on ⊥.
    pub fn thread_align(self) -> Option<u128> {
        match self {
            SaShape::Bottom => None,
            SaShape::Strided { stride, align } => Some(gcd(stride.unsigned_abs(), align)),
            SaShape::Varying { align } => Some(align),
        }
    }

    /// The least upper bound in the order of Fig. 10.6 (with `a' | a` for strided
    /// shapes of one stride, see the module notes).
    pub fn join(self, other: SaShape) -> SaShape {
        use SaShape::{Bottom, Strided, Varying};
        match (self, other) {
            (Bottom, x) | (x, Bottom) => x,
            (
                Strided { stride, align },
                Strided {
                    stride: s2,
                    align: a2,
                },
            ) if stride == s2 => Strided {
                stride,
                align: gcd(align, a2),
            },
            (x, y) => {
                let a = gcd(x.thread_align().unwrap_or(0), y.thread_align().unwrap_or(0));
                Varying {
                    align: if a == 0 { 1 } else { a },
                }
            }
        }
    }

    /// Whether `self ⊑ other` (Fig. 10.6, corrected as [`SaShape::join`]).
    pub fn leq(self, other: SaShape) -> bool {
        self.join(other) == other
    }

    /// The basic shape (§10.2.1): `(0, a)` is `u`, every other shape but ⊥ is `v`.
    pub fn to_basic(self) -> Shape {
        match self {
            SaShape::Bottom => Shape::Bottom,
            SaShape::Strided { stride: 0, .. } => Shape::Uniform,
            _ => Shape::Varying,
        }
    }

    /// The sa-shape of a basic shape (§10.2.1): `u` is `(0, 1)`, `v` is `1`.
    pub fn from_basic(shape: Shape) -> SaShape {
        match shape {
            Shape::Bottom => SaShape::Bottom,
            Shape::Uniform => SaShape::uniform(1),
            Shape::Varying => SaShape::Varying { align: 1 },
        }
    }

    /// Whether this is a strided shape with stride 0.
    pub fn is_uniform(self) -> bool {
        matches!(self, SaShape::Strided { stride: 0, .. })
    }

    /// The words the annotated output and the corpus use: `uniform`,
    /// `uniform align(8)`, `stride(4) align(16)`, `varying align(4)`, `varying`,
    /// `bottom`.
    pub fn word(self) -> String {
        match self {
            SaShape::Bottom => "bottom".into(),
            SaShape::Strided {
                stride: 0,
                align: 1,
            } => "uniform".into(),
            SaShape::Strided { stride: 0, align } => format!("uniform align({align})"),
            SaShape::Strided { stride, align } => format!("stride({stride}) align({align})"),
            SaShape::Varying { align: 1 } => "varying".into(),
            SaShape::Varying { align } => format!("varying align({align})"),
        }
    }

    /// Reads the corpus syntax: `stride S align A` (or `stride(S) align(A)`),
    /// `uniform [align A]`, `varying [align A]`, `bottom`.
    pub fn parse(text: &str) -> Option<SaShape> {
        let cleaned: String = text
            .chars()
            .map(|c| if c == '(' || c == ')' { ' ' } else { c })
            .collect();
        let words: Vec<&str> = cleaned.split_whitespace().collect();
        let align_of = |rest: &[&str]| -> Option<u128> {
            match rest {
                [] => Some(1),
                ["align", a] => a.parse().ok(),
                _ => None,
            }
        };
        match words.as_slice() {
            ["bottom"] => Some(SaShape::Bottom),
            ["uniform", rest @ ..] => Some(SaShape::uniform(align_of(rest)?)),
            ["varying", rest @ ..] => {
                let align = align_of(rest)?;
                (align > 0).then_some(SaShape::Varying { align })
            }
            ["stride", s, rest @ ..] => Some(SaShape::Strided {
                stride: s.parse().ok()?,
                align: align_of(rest)?,
            }),
            _ => None,
        }
    }

    /// Whether the lanes of one dynamic instance are in γ of this shape, read
    /// modulo 2^`bits`: `lanes` are `(lane, value)` for every executing lane, `None`
    /// for ⊤. This is the check `proofs/tests/stride_soundness.rs` and the corpus
    /// runner apply to every instance.
    pub fn admits(self, bits: u32, lanes: &[(usize, Option<u128>)]) -> bool {
        let mask = if bits >= 128 {
            u128::MAX
        } else {
            two_to(bits) - 1
        };
        match self {
            SaShape::Bottom => lanes.is_empty(),
            SaShape::Varying { align } => {
                let g = pow2(align, bits);
                lanes.iter().all(|(_, v)| {
                    v.is_none_or(|v| {
                        if g > mask {
                            v & mask == 0
                        } else {
                            (v & mask) % g == 0
                        }
                    })
                })
            }
            SaShape::Strided { stride, align } => {
                if lanes.iter().all(|(_, v)| v.is_none()) {
                    return true;
                }
                let Some(&(t0, Some(v0))) = lanes.first() else {
                    return false;
                };
                // The base: the value lane 0 would hold, v0 - s·t0 (mod 2^N).
                let step = |t: usize| (stride as u128).wrapping_mul(t as u128);
                let base = v0.wrapping_sub(step(t0)) & mask;
                let g = pow2(align, bits);
                let aligned = if g > mask { base == 0 } else { base % g == 0 };
                aligned
                    && lanes.iter().all(|&(t, v)| {
                        v.is_some_and(|v| (v & mask) == (base.wrapping_add(step(t)) & mask))
                    })
            }
        }
    }
}

impl std::fmt::Display for SaShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.word())
    }
}
