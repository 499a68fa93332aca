//! The fast form of [UPD-ENV] (thesis §4.6, Fig. 4.8): getNewValue in every lane of
//! a column at once, for [`crate::rules::Exec::Fast`].
//!
//! The rule, [`crate::rules::env::upd_env`], reads and writes one lane at a time
//! through [`Val`]s. This fast form gives every lane the same value, in place on the
//! stored column: bit columns by a branch-free select with the activation as
//! words, [`Val`] columns by swapping the whole column when most lanes are active
//! and fixing the passive lanes afterwards. The unit tests compare it with the
//! rule's [`get_new_value`] lane by lane.
#![allow(rustdoc::broken_intra_doc_links, reason = "rule citations, not links")]

use crate::column::{BitColumn, Column, ColumnMut};
use crate::ir::Value;
use crate::rules::env::{get_new_value, update_defined};
use crate::rules::state::LaneMasks;
use crate::rules::state::{Env, Interp};
use crate::value::Val;

/// [UPD-ENV] on whole columns: what [`crate::rules::env::upd_env`] gives every
/// lane, computed in place. `new` is consumed (on return it holds W lanes of no
/// meaning, for the caller to reuse as a buffer). `lane_masks` keeps the
/// activation as words between calls (the machine's scratch).
pub fn upd_env(
    interp: Interp,
    env: &mut Env,
    id: Value,
    new: ColumnMut<'_>,
    active: &[bool],
    lane_masks: &mut LaneMasks,
) {
    update_defined(interp, env, id, active);
    match (env.column_mut(id), new) {
        (Column::Vals(column), ColumnMut::Vals(new)) if new.len() == column.len() => {
            if 2 * active.iter().filter(|&&a| a).count() > active.len() {
                std::mem::swap(column, new);
                update_passive(interp, column, new, active);
            } else {
                for ((slot, n), &a) in column.iter_mut().zip(new.iter_mut()).zip(active) {
                    get_new_value(interp, a, slot, n);
                }
            }
        }
        (Column::Bits(column), ColumnMut::Bits(new))
            if new.kind == column.kind && new.bits.len() == column.bits.len() =>
        {
            let words = lane_masks.words_of(active);
            update_bit_lanes(interp, column, new, active, words);
        }
        (column, new) => {
            // Stored differently (a command computed [`Val`]s for a bit-column
            // value, say): getNewValue lane by lane through [`Val`]s.
            for (lane, &a) in active.iter().enumerate() {
                let mut slot = column.lane(lane);
                let mut n = new.lane(lane);
                get_new_value(interp, a, &mut slot, &mut n);
                if a || interp == Interp::Oblivious {
                    column.set_lane(lane, slot);
                }
            }
        }
    }
}

/// getNewValue in every lane of a bit column: `slot = active ? new : (FR ? slot : ⊤)`
/// (what [`get_new_value`] does to a [`Val`] lane, on a pattern and its ⊤ flag; the unit test
/// `bit_columns_update_like_get_new_value` compares the two).
/// `lane_masks` holds the lanes of `active` as words (`!0` active, `0` passive).
pub(crate) fn update_bit_lanes(
    interp: Interp,
    column: &mut BitColumn,
    new: &BitColumn,
    active: &[bool],
    lane_masks: &[u64],
) {
    // Two loops of one element type each, without branches (the activation is
    // irregular, so branches would be mispredicted): the patterns, then the ⊤
    // flags. A passive lane's pattern is kept even under OBL: its flag makes it ⊤.
    let oblivious = interp == Interp::Oblivious;
    for ((slot, &n), &take) in column.bits.iter_mut().zip(&new.bits).zip(lane_masks) {
        *slot = (n & take) | (*slot & !take);
    }
    #[cfg(feature = "seeded-bugs")]
    let oblivious = oblivious && !seeded_bug("kernel");
    let flags = column.undef.iter_mut().zip(&new.undef).zip(active);
    for ((slot, &n), &a) in flags {
        *slot = (a & n) | (!a & (*slot | oblivious));
    }
}

/// Whether `PLLVM_SEEDED_BUG` (comma-separated) names the seeded bug `name`
/// (only with the `seeded-bugs` feature; `pllvm fuzz`'s own test, docs/fuzzing.md):
/// `kernel` (the bug's name in `PLLVM_SEEDED_BUG`, which the fuzzing tests and
/// docs use) makes this fast form forget that OBL makes a passive lane ⊤.
#[cfg(feature = "seeded-bugs")]
fn seeded_bug(name: &str) -> bool {
    static BUGS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUGS.get_or_init(|| std::env::var("PLLVM_SEEDED_BUG").unwrap_or_default())
        .split(',')
        .any(|b| b == name)
}

/// getNewValue in the passive lanes after the columns were swapped whole:
/// `column` holds v^W and `old` the old column. Swapping a passive lane back gives
/// the slot its old value again, and getNewValue of a passive lane then applies.
#[inline]
fn update_passive(interp: Interp, column: &mut [Val], old: &mut [Val], active: &[bool]) {
    let lanes = column.iter_mut().zip(old.iter_mut()).zip(active);
    for ((slot, old), _) in lanes.filter(|(_, a)| !**a) {
        std::mem::swap(slot, old);
        get_new_value(interp, false, slot, old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::BitKind;

    /// The select form of getNewValue on bit columns gives every lane what
    /// [`get_new_value`] gives it, for every activation of 6 lanes, both
    /// interpretations, and ⊤ on either side.
    #[test]
    fn bit_columns_update_like_get_new_value() {
        let kind = BitKind::Int(8);
        let old: Vec<Val> = vec![
            Val::Int(1),
            Val::Undef,
            Val::Int(3),
            Val::Undef,
            Val::Int(5),
            Val::Int(6),
        ];
        let new: Vec<Val> = vec![
            Val::Int(9),
            Val::Int(8),
            Val::Undef,
            Val::Undef,
            Val::Int(7),
            Val::Int(0),
        ];
        for interp in [Interp::Freezing, Interp::Oblivious] {
            for mask in 0..64u32 {
                let active: Vec<bool> = (0..6).map(|l| mask >> l & 1 == 1).collect();
                let mut column = BitColumn::from_vals(kind, &old).expect("fits");
                let update = BitColumn::from_vals(kind, &new).expect("fits");
                let words: Vec<u64> = active
                    .iter()
                    .map(|&a| u64::from(a).wrapping_neg())
                    .collect();
                update_bit_lanes(interp, &mut column, &update, &active, &words);
                for lane in 0..6 {
                    let (mut slot, mut n) = (old[lane].clone(), new[lane].clone());
                    get_new_value(interp, active[lane], &mut slot, &mut n);
                    assert_eq!(
                        column.lane(lane),
                        slot,
                        "{interp:?} mask {mask:b} lane {lane}"
                    );
                }
                let same = BitColumn::from_vals(kind, &column.clone().vals_for_test());
                assert_eq!(Some(column), same, "equal lanes, equal columns");
            }
        }
    }

    /// The fast form [`upd_env`] on a bit column of Δ^W gives every lane what [`get_new_value`]
    /// gives it, over a sequence of activations in which each one is used twice
    /// in a row and then changes (the lane words kept for an activation must
    /// follow it), under both interpretations.
    #[test]
    fn upd_env_follows_the_activation_on_bit_columns() {
        let text = "define i8 @f(i8 %x) {\nentry:\n  ret i8 %x\n}\n";
        let (module, _) = crate::text::parse_module(text).expect("parses");
        let func = module.functions.keys().next().expect("one function");
        let program = crate::rules::program::Program::new(&module, func).expect("program");
        let x = program.body.value_by_name("x").expect("%x");
        let width = 5;
        for interp in [Interp::Freezing, Interp::Oblivious] {
            let first: Vec<Val> = (0..width as u128).map(Val::Int).collect();
            let mut env = Env::new(
                &program,
                width,
                std::slice::from_ref(&first),
                &|_| Val::Undef,
                false,
                false,
            );
            assert!(
                matches!(env.column(x), Column::Bits(_)),
                "%x is a bit column"
            );
            let mut model = first;
            let mut masks = LaneMasks::default();
            // Gray-code order visits every activation; each is applied twice.
            for step in 0..2 * (1u32 << width) {
                let mask = (step / 2) ^ (step / 4);
                let active: Vec<bool> = (0..width).map(|l| mask >> l & 1 == 1).collect();
                let new: Vec<Val> = (0..width)
                    .map(|l| match (step as usize + l) % 3 {
                        0 => Val::Undef,
                        k => Val::Int((10 * step as u128 + k as u128) % 256),
                    })
                    .collect();
                let mut update = BitColumn::from_vals(BitKind::Int(8), &new).expect("fits");
                upd_env(
                    interp,
                    &mut env,
                    x,
                    ColumnMut::Bits(&mut update),
                    &active,
                    &mut masks,
                );
                for (lane, slot) in model.iter_mut().enumerate() {
                    get_new_value(interp, active[lane], slot, &mut new[lane].clone());
                }
                assert_eq!(
                    env.get(x).as_ref(),
                    model.as_slice(),
                    "{interp:?} step {step}"
                );
            }
        }
    }

    impl BitColumn {
        fn vals_for_test(self) -> Vec<Val> {
            (0..self.bits.len()).map(|l| self.lane(l)).collect()
        }
    }
}
