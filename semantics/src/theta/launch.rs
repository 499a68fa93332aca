//! Where a thread array sits in a launch of many (docs/launch.md): `thread_id`,
//! `group_id` and `group_size` over a launch ([`apply_launch`]), and the OpenCL
//! work-item functions (OpenCL C 2.0 §6.13.1) of a launch of one, two or
//! three dimensions ([`theta_work_item`]).

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
    /// The launch's shape when it has more than one dimension; `None`: one
    /// dimension, `group_size` and `grid_size` being dimension 0's.
    pub dims: Option<LaunchDims>,
}

/// The shape of a launch of two or three dimensions (docs/launch.md): the
/// threads of a work-group per dimension and the work-groups per dimension.
/// Threads are numbered the way GPUs form warps, dimension 0 fastest: a
/// work-group's thread of local id (x, y, z) has local number
/// `x + gx·(y + gy·z)`, a group of id (X, Y, Z) has group number
/// `X + nx·(Y + ny·Z)`, and a thread array holds W consecutive local numbers
/// of one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchDims {
    /// Threads of a work-group in each dimension, (gx, gy, gz), each ≥ 1.
    pub group: [u64; 3],
    /// Work-groups in each dimension, (nx, ny, nz), each ≥ 1.
    pub groups: [u64; 3],
}

impl LaunchDims {
    /// The digits of `number` in the mixed radix `sizes`, dimension 0 first
    /// (the last digit takes what is left).
    fn digits(number: u64, sizes: [u64; 3]) -> [u64; 3] {
        let x = number % sizes[0].max(1);
        let rest = number / sizes[0].max(1);
        [x, rest % sizes[1].max(1), rest / sizes[1].max(1)]
    }

    /// The local id (x, y, z) of a group's thread of local number `local`.
    pub fn local_id(&self, local: u64) -> [u64; 3] {
        LaunchDims::digits(local, self.group)
    }

    /// The id (X, Y, Z) of the group of number `group`.
    pub fn group_id(&self, group: u64) -> [u64; 3] {
        LaunchDims::digits(group, self.groups)
    }
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
        // In a launch of several dimensions, dimension 0's: the id registers
        // these builtins stand for (`tid.x`, `workitem.id.x`) are x's.
        Builtin::ThreadId => {
            let id = |lane: u64| match &position.dims {
                Some(dims) => dims.local_id(first + lane)[0],
                None => first + lane,
            };
            let largest = (0..width as u64).map(id).max().unwrap_or(0);
            let bits = fits(ret, largest).map_err(too_narrow)?;
            Ok((0..width as u64)
                .map(|lane| int_val(bits, BigUint::from(id(lane))))
                .collect())
        }
        Builtin::GroupId | Builtin::GroupSize => {
            let value = match (b, &position.dims) {
                (Builtin::GroupId, Some(dims)) => dims.group_id(position.group)[0],
                (Builtin::GroupId, None) => position.group,
                (_, Some(dims)) => dims.group[0],
                _ => position.group_size.unwrap_or(width as u64),
            };
            let bits = fits(ret, value).map_err(too_narrow)?;
            Ok(vec![int_val(bits, BigUint::from(value)); width])
        }
        other => Err(ThetaError::NotHorizontal(other)),
    }
}

/// θ(`get_local_id(d)`, ... ) for one lane (OpenCL C 2.0 §6.13.1) in a launch
/// (docs/launch.md). In a launch of one dimension: in dimension 0 the values of
/// `thread_id`, `group_id` and `group_size` at `position` (the lane's local id
/// is `first_local_id + lane`, its global id `group · group_size + local id`),
/// the grid's threads N and ⌈N / group_size⌉ groups. In a launch of two or
/// three dimensions ([`LaunchDims`]): the lane's local number
/// `first_local_id + lane` and the group's number `group` as ids per
/// dimension, global id `group id · group size + local id` and global size
/// `group size · groups` per dimension. In the dimensions a launch does not
/// have, and for any `d` ≥ 3, what OpenCL gives there: ids 0, sizes and
/// counts 1. A thread array alone is one group of W threads. ⊤ when `d` is ⊤,
/// and when the value does not fit the result type (an error would be wrong
/// here: `d` is per lane).
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
    let local = position.first_local_id + lane as u64;
    // Per dimension: the lane's local id, its group's id, the group's size,
    // the number of groups and the global size. One dimension is dimension 0
    // of these, where the last group may be partial (N need not be a
    // multiple of the group size, so the global size is N).
    let (local_id, group_id, size, groups, global) = match &position.dims {
        Some(dims) => (
            dims.local_id(local),
            dims.group_id(position.group),
            dims.group,
            dims.groups,
            std::array::from_fn(|d| dims.group[d] * dims.groups[d]),
        ),
        None => {
            let size = position.group_size.unwrap_or(width as u64);
            let grid = position.grid_size.unwrap_or(size);
            (
                [local, 0, 0],
                [position.group, 0, 0],
                [size, 1, 1],
                [grid.div_ceil(size.max(1)), 1, 1],
                [grid, 1, 1],
            )
        }
    };
    let value = match usize::try_from(d).ok().filter(|&d| d < 3) {
        Some(d) => match f {
            WorkItemFn::LocalId => local_id[d],
            WorkItemFn::GlobalId => group_id[d] * size[d] + local_id[d],
            WorkItemFn::GroupId => group_id[d],
            WorkItemFn::LocalSize => size[d],
            WorkItemFn::NumGroups => groups[d],
            WorkItemFn::GlobalSize => global[d],
        },
        None => match f {
            WorkItemFn::LocalId | WorkItemFn::GlobalId | WorkItemFn::GroupId => 0,
            WorkItemFn::LocalSize | WorkItemFn::NumGroups | WorkItemFn::GlobalSize => 1,
        },
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
            dims: None,
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

    /// A launch of 8 × 6 × 2 threads in groups of 4 × 2 × 1 (groups 2 × 3 × 2,
    /// warps of 4): lane 1 of an array starting at local number 4 of group
    /// number 9. Local number 5 is (1, 1, 0) in a 4 × 2 group; group number 9
    /// is (1, 1, 1) among 2 × 3 × 2 groups; so the global id is (1·4 + 1,
    /// 1·2 + 1, 1·1 + 0) = (5, 3, 1), derived by hand from OpenCL C 2.0
    /// §6.13.1's definitions.
    #[test]
    fn work_item_functions_in_three_dimensions() {
        use WorkItemFn::*;
        let at = LaunchPosition {
            first_local_id: 4,
            group: 9,
            group_size: Some(8),
            grid_size: Some(96),
            dims: Some(LaunchDims {
                group: [4, 2, 1],
                groups: [2, 3, 2],
            }),
        };
        let f = |w, d: u128| theta_work_item(w, &Val::Int(d), 1, 4, 32, &at);
        let by_dim = |w| [f(w, 0), f(w, 1), f(w, 2), f(w, 3)];
        let ints = |v: [u128; 4]| v.map(Val::Int);
        assert_eq!(by_dim(LocalId), ints([1, 1, 0, 0]));
        assert_eq!(by_dim(GroupId), ints([1, 1, 1, 0]));
        assert_eq!(by_dim(GlobalId), ints([5, 3, 1, 0]));
        assert_eq!(by_dim(LocalSize), ints([4, 2, 1, 1]));
        assert_eq!(by_dim(NumGroups), ints([2, 3, 2, 1]));
        assert_eq!(by_dim(GlobalSize), ints([8, 6, 2, 1]));
        // The x registers (`tid.x`, `ctaid.x`, `ntid.x`) are dimension 0's:
        // lanes 0-3 are local numbers 4-7, that is x = 0, 1, 2, 3 of row 1.
        let i32t = TypeData::Int(32);
        assert_eq!(
            apply_launch(Builtin::ThreadId, &i32t, 4, &at).unwrap(),
            [0, 1, 2, 3].map(Val::Int).to_vec()
        );
        assert_eq!(
            apply_launch(Builtin::GroupId, &i32t, 4, &at).unwrap(),
            vec![Val::Int(1); 4]
        );
        assert_eq!(
            apply_launch(Builtin::GroupSize, &i32t, 4, &at).unwrap(),
            vec![Val::Int(4); 4]
        );
    }
}
