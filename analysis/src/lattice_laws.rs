//! Lattice laws of the shape domains, as quickcheck properties: the basic lattice
//! of thesis §6.1 ([`Shape`]) and the sa-lattice of Ch. 10 ([`SaShape`], Fig. 10.4
//! and 10.6). Join is commutative, associative and idempotent, `⊥` is its unit,
//! `leq` is the order it induces, and the transformers are monotone (the fixpoint
//! iteration of Listing 1 only terminates at the least fixpoint if they are, §6.4).

use crate::sa_shape::SaShape;
use crate::shape::Shape;
use crate::stride::{add, generic, mul, mul_const, neg};
use crate::transfer::{arith, load};
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// A basic shape.
#[derive(Clone, Copy, Debug)]
struct AnyShape(Shape);

impl Arbitrary for AnyShape {
    fn arbitrary(g: &mut Gen) -> Self {
        AnyShape(
            *g.choose(&[Shape::Bottom, Shape::Uniform, Shape::Varying])
                .expect("three shapes"),
        )
    }
}

/// The bit widths the sa-lattice reads values in (§10.1).
const WIDTHS: [u32; 4] = [1, 8, 32, 64];

/// An sa-shape, normalized for a bit width `n` drawn from [`WIDTHS`] (the widths of
/// one property's shapes agree: see [`SaCase`]).
#[derive(Clone, Copy, Debug)]
struct SaCase {
    n: u32,
    shapes: [SaShape; 4],
}

fn any_sa(g: &mut Gen, n: u32) -> SaShape {
    // Small strides and power-of-two or small alignments, as the transformers meet
    // them; 0 is a legal alignment of a strided shape (the base is 0).
    let stride = *g
        .choose(&[0i128, 0, 1, -1, 2, 3, 4, -4, 8, 12])
        .expect("strides");
    let align = *g
        .choose(&[0u128, 1, 2, 3, 4, 6, 8, 16, 64])
        .expect("aligns");
    match u8::arbitrary(g) % 4 {
        0 => SaShape::Bottom,
        1 => SaShape::Varying {
            align: align.max(1),
        },
        _ => SaShape::Strided { stride, align },
    }
    .normalized(n)
}

impl Arbitrary for SaCase {
    fn arbitrary(g: &mut Gen) -> Self {
        let n = *g.choose(&WIDTHS).expect("widths");
        SaCase {
            n,
            shapes: [any_sa(g, n), any_sa(g, n), any_sa(g, n), any_sa(g, n)],
        }
    }
}

fn leq(a: Shape, b: Shape) -> bool {
    a.join(b) == b
}

fn check<A: Arbitrary + std::fmt::Debug>(property: fn(A) -> bool) {
    QuickCheck::new().tests(2000).quickcheck(property);
}

#[test]
fn basic_join_is_commutative_associative_idempotent_with_bottom_as_unit() {
    check(|(AnyShape(a), AnyShape(b), AnyShape(c))| {
        a.join(b) == b.join(a)
            && a.join(b).join(c) == a.join(b.join(c))
            && a.join(a) == a
            && Shape::Bottom.join(a) == a
    });
}

#[test]
fn basic_transformers_are_monotone() {
    // [DA-UARITH] / [DA-DARITH] and [DA-LOAD-*]: a larger operand gives a larger
    // (or the same) result.
    check(|(AnyShape(a), AnyShape(b), AnyShape(c))| {
        let a2 = a.join(c);
        leq(arith([a, b]), arith([a2, b]))
            && leq(arith([b, a]), arith([b, a2]))
            && leq(load(a), load(a2))
    });
}

#[test]
fn sa_join_is_commutative_associative_idempotent_with_bottom_as_unit() {
    check(
        |SaCase {
             n,
             shapes: [a, b, c, _],
         }| {
            let j = |x: SaShape, y: SaShape| x.join(y).normalized(n);
            j(a, b) == j(b, a)
                && j(j(a, b), c) == j(a, j(b, c))
                && j(a, a) == a
                && j(SaShape::Bottom, a) == a
        },
    );
}

#[test]
fn sa_leq_is_the_order_join_induces() {
    check(
        |SaCase {
             n,
             shapes: [a, b, _, _],
         }| {
            let j = a.join(b).normalized(n);
            // Both are below their join, and a shape is below another exactly when
            // joining them gives the larger one.
            a.leq(j) && b.leq(j) && a.leq(a) && a.leq(b) == (j == b)
        },
    );
}

#[test]
fn sa_to_basic_is_monotone() {
    check(
        |SaCase {
             n,
             shapes: [a, b, _, _],
         }| {
            let a2 = a.join(b).normalized(n);
            leq(a.to_basic(), a2.to_basic())
        },
    );
}

/// Whether the alignment of every lane's value in `s` (`thread_align`, the gcd of
/// stride and base alignment) is a nonzero power of two: modulo 2^N an odd factor
/// of an alignment is no constraint (stride.rs, notes on Fig. 10.10), so only there
/// do the divisibility order of the lattice and the meaning agree.
fn pow2_aligned(s: SaShape) -> bool {
    match s {
        SaShape::Bottom => true,
        _ => s.thread_align().is_some_and(u128::is_power_of_two),
    }
}

#[test]
fn sa_transformers_are_monotone() {
    // x ⊑ x' and y ⊑ y' give f(x, y) ⊑ f(x', y') for the arithmetic transformers of
    // §10.4 (Fig. 10.9, 10.10) and the generic one.
    //
    // `mul` and `mul_const` are checked on power-of-two alignments only. With odd
    // factors they are not monotone where a product of alignments reaches 2^N:
    // `norm_align` keeps only the power-of-two part there, while the larger operand's
    // smaller product keeps its odd factor. For N = 8: `(0, 6) · 64` is `varying
    // align(128)`, `(0, 6) · 4` is `varying align(24)`, and 128 ⋢ 24 in the
    // divisibility order (though modulo 2^8 both say as much). The constant 0 does
    // the same: `x · (0, 0)` is `varying align(2^N)`, not below `varying align(3)`.
    // Both are precision artefacts of the order, not unsoundness.
    check(
        |SaCase {
             n,
             shapes: [x, y, dx, dy],
         }| {
            let x2 = x.join(dx).normalized(n);
            let y2 = y.join(dy).normalized(n);
            let additive: [fn(SaShape, SaShape, u32) -> SaShape; 2] = [add, generic];
            let additive_ok = additive
                .iter()
                .all(|f| f(x, y, n).normalized(n).leq(f(x2, y2, n).normalized(n)));
            let neg_ok = neg(x).normalized(n).leq(neg(x2).normalized(n));
            let pow2 = [x, y, x2, y2].into_iter().all(pow2_aligned);
            let mul_ok = !pow2
                || (mul(x, y, n).normalized(n).leq(mul(x2, y2, n).normalized(n))
                    && [-4i128, -1, 2, 8]
                        .iter()
                        .all(|&c| mul_const(c, x, n).leq(mul_const(c, x2, n))));
            additive_ok && neg_ok && mul_ok
        },
    );
}

#[test]
fn a_non_monotone_transformer_is_caught() {
    // The properties above can fail: a transformer that maps ⊥ to v is refuted.
    fn broken(a: Shape) -> Shape {
        if a == Shape::Bottom {
            Shape::Varying
        } else {
            a
        }
    }
    let property: fn((AnyShape, AnyShape)) -> bool =
        |(AnyShape(a), AnyShape(b))| leq(broken(a), broken(a.join(b)));
    let refuted = QuickCheck::new().tests(2000).quicktest(property);
    assert!(refuted.is_err(), "{refuted:?}");
}
