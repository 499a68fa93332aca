//! Where a thread array sits in a launch of many (docs/launch.md): `thread_id`,
//! `group_id` and `group_size` over a launch ([`apply_launch`]), and the OpenCL
//! work-item functions (OpenCL C 2.0 §6.13.1) of a one-dimensional launch
//! ([`theta_work_item`]).

use super::builtin::{Builtin, ThetaError, WorkItemFn, fits};
use crate::ops::int::int_val;
use crate::types::TypeData;
use crate::value::Val;
use num_bigint::BigUint;

/// Whether the builtin reads the thread array's place in a launch (`thread_id`,
/// `group_id`, `group_size`): [`apply_launch`] evaluates it.
pub fn is_launch_id(b: Builtin) -> bool {
    matches!(b, Builtin::ThreadId | Builtin::GroupId | Builtin::GroupSize)
}

/// Where a thread array sits in a launch of many (docs/launch.md): a
/// grid of N threads runs as thread arrays of W lanes, grouped into work-groups
/// of G threads (G a multiple of W). One thread array alone, as the thesis runs
/// it, is a group of W threads whose lane τ has id τ (the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchPosition {
    /// The id within its work-group of lane 0: lane τ's `thread_id` is this + τ.
    pub first_local_id: u64,
    /// The work-group's id (`group_id`).
    pub group: u64,
    /// Threads per work-group (`group_size`); `None`: W, the thread array alone.
    pub group_size: Option<u64>,
    /// Threads of the whole grid (OpenCL's `get_global_size`); `None`: one group.
    pub grid_size: Option<u64>,
}

/// `thread_id`, `group_id` and `group_size` for every lane of a thread array of
/// `width` lanes at `position` in a launch: lane τ's thread id is
/// `first_local_id + τ` (Fig. 4.15's τ when the array is alone), the group's id
/// and size are the same in every lane. A result type that cannot hold the value
/// is an error, never a wrapped value.
pub fn apply_launch(
    b: Builtin,
    ret: &TypeData,
    width: usize,
    position: &LaunchPosition,
) -> Result<Vec<Val>, ThetaError> {
    let too_narrow = |bits| ThetaError::ResultTooNarrow {
        builtin: b,
        width,
        bits,
    };
    let first = position.first_local_id;
    match b {
        Builtin::ThreadId => {
            let last = first.saturating_add(width.saturating_sub(1) as u64);
            let bits = fits(ret, last).map_err(too_narrow)?;
            Ok((0..width as u64)
                .map(|lane| int_val(bits, BigUint::from(first + lane)))
                .collect())
        }
        Builtin::GroupId | Builtin::GroupSize => {
            let value = match b {
                Builtin::GroupId => position.group,
                _ => position.group_size.unwrap_or(width as u64),
            };
            let bits = fits(ret, value).map_err(too_narrow)?;
            Ok(vec![int_val(bits, BigUint::from(value)); width])
        }
        other => Err(ThetaError::NotHorizontal(other)),
    }
}

/// θ(`get_local_id(d)`, ... ) for one lane (OpenCL C 2.0 §6.13.1) in a launch
/// of one dimension (docs/launch.md): in dimension 0 the values of `thread_id`,
/// `group_id` and `group_size` at `position` (the lane's local id is
/// `first_local_id + lane`, its global id `group · group_size + local id`), the
/// grid's threads N and ⌈N / group_size⌉ groups; in dimensions 1 and 2, and for
/// any `d` ≥ 3, what OpenCL gives there: ids 0, sizes and counts 1. A thread
/// array alone is one group of W threads. ⊤ when `d` is ⊤, and when the value
/// does not fit the result type (an error would be wrong here: `d` is per lane).
pub fn theta_work_item(
    f: WorkItemFn,
    d: &Val,
    lane: usize,
    width: usize,
    bits: u32,
    position: &LaunchPosition,
) -> Val {
    let Some(d) = d.as_u128() else {
        return Val::Undef;
    };
    let group_size = position.group_size.unwrap_or(width as u64);
    let grid = position.grid_size.unwrap_or(group_size);
    let local = position.first_local_id + lane as u64;
    let value = match (f, d) {
        (WorkItemFn::LocalId, 0) => local,
        (WorkItemFn::GlobalId, 0) => position.group * group_size + local,
        (WorkItemFn::GroupId, 0) => position.group,
        (WorkItemFn::LocalSize, 0) => group_size,
        (WorkItemFn::NumGroups, 0) => grid.div_ceil(group_size.max(1)),
        (WorkItemFn::GlobalSize, 0) => grid,
        (WorkItemFn::LocalId | WorkItemFn::GlobalId | WorkItemFn::GroupId, _) => 0,
        (WorkItemFn::LocalSize | WorkItemFn::NumGroups | WorkItemFn::GlobalSize, _) => 1,
    };
    if BigUint::from(value).bits() > u64::from(bits) {
        return Val::Undef;
    }
    int_val(bits, BigUint::from(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theta::*;

    /// OpenCL's work-item functions in dimension 0 and beyond, alone and in a
    /// launch (lane 2 of an array whose first thread is local id 4 of group 1,
    /// groups of 8, a grid of 20).
    #[test]
    fn work_item_functions() {
        use WorkItemFn::*;
        let at = LaunchPosition {
            first_local_id: 4,
            group: 1,
            group_size: Some(8),
            grid_size: Some(20),
        };
        let zero = Val::Int(0);
        let one = Val::Int(1);
        let f = |w, d: &Val| theta_work_item(w, d, 2, 4, 64, &at);
        assert_eq!(f(LocalId, &zero), Val::Int(6));
        assert_eq!(f(GlobalId, &zero), Val::Int(14));
        assert_eq!(f(GroupId, &zero), Val::Int(1));
        assert_eq!(f(LocalSize, &zero), Val::Int(8));
        assert_eq!(f(NumGroups, &zero), Val::Int(3));
        assert_eq!(f(GlobalSize, &zero), Val::Int(20));
        assert_eq!(f(LocalId, &one), Val::Int(0));
        assert_eq!(f(LocalSize, &one), Val::Int(1));
        assert_eq!(f(NumGroups, &Val::Int(7)), Val::Int(1));
        assert_eq!(f(LocalId, &Val::Undef), Val::Undef);
        let alone = LaunchPosition::default();
        assert_eq!(
            theta_work_item(GlobalId, &zero, 3, 4, 32, &alone),
            Val::Int(3)
        );
        assert_eq!(
            theta_work_item(GlobalSize, &zero, 3, 4, 32, &alone),
            Val::Int(4)
        );
        assert_eq!(
            theta_work_item(NumGroups, &zero, 3, 4, 32, &alone),
            Val::Int(1)
        );
        assert_eq!(
            resolve("_Z12get_local_idj"),
            Some(Builtin::WorkItem(LocalId))
        );
        assert_eq!(resolve("_Z7barrierj"), Some(Builtin::Barrier));
        assert_eq!(resolve("llvm.nvvm.barrier0"), Some(Builtin::Barrier));
        assert_eq!(
            resolve("llvm.nvvm.read.ptx.sreg.nctaid.x"),
            Some(Builtin::GridDim(NumGroups, 0))
        );
        assert_eq!(
            resolve("llvm.amdgcn.workitem.id.y"),
            Some(Builtin::GridDim(LocalId, 1))
        );
    }
}
