// Work-groups of several warps (docs/launch.md): a tree reduction in local
// memory. Thread g (local id l in a group of n) puts g into the group's local
// array, and after log2(n) rounds, each closed by a barrier, thread 0 of the
// group writes the group's sum. `lds_reduce` keeps the array in a `__local`
// variable (a global in addrspace(3)), `lds_reduce_param` gets it as a
// `__local` pointer parameter (sized with --buffer). With groups of 256 and
// warps of 32, every round but the last ones reads what other warps wrote.
__kernel void lds_reduce(__global int *sums) {
  __local int scratch[256];
  size_t l = get_local_id(0);
  size_t n = get_local_size(0);
  scratch[l] = (int)get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s)
      scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    sums[get_group_id(0)] = scratch[0];
}

__kernel void lds_reduce_param(__global int *sums, __local int *scratch) {
  size_t l = get_local_id(0);
  size_t n = get_local_size(0);
  scratch[l] = (int)get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s)
      scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    sums[get_group_id(0)] = scratch[0];
}
