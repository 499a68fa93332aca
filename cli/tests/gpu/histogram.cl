__kernel void histogram(__global int *hist, __global const int *data, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) __atomic_fetch_add(&hist[data[i] & 7], 1, __ATOMIC_RELAXED);
}
