// Launches (docs/launch.md): OpenCL's work-item functions and barriers, which clang leaves as
// calls (`_Z12get_local_idj`, `_Z7barrierj`) without the target's library.
__kernel void workitems(__global int *out) {
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  size_t grp = get_group_id(0);
  size_t ls = get_local_size(0);
  size_t ng = get_num_groups(0);
  size_t gs = get_global_size(0);
  size_t y = get_local_id(1) + get_local_size(1);
  out[g] = (int)(l + grp * 100 + ls * 1000 + ng * 10000 + gs + y * 100000);
  barrier(CLK_LOCAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
}
