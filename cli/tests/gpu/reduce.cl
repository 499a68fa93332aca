/* A reduction with a divergent exit: thread i sums data[i], data[i + stride], ...
   until it meets a negative value (its own exit) or the end of the data; it
   writes its partial sum to partial[i] and adds it to the total, partial[stride],
   atomically. Threads from `stride` on only return. */
__kernel void reduce(__global int *partial, __global const int *data, int n, int stride) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i >= stride) return;
  int sum = 0;
  for (int k = i; k < n; k += stride) {
    int v = data[k];
    if (v < 0) break;
    sum += v;
  }
  partial[i] = sum;
  __atomic_fetch_add(&partial[stride], sum, __ATOMIC_RELAXED);
}
