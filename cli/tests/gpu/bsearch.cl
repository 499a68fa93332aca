/* XSBench's grid search per thread: the last table index whose entry is at
   most the thread's query (the loop's trip count is the same for all, its
   loads are not). */
__kernel void grid_search(__global long *out, __global const double *table,
                      __global const double *query, long tn, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  long lo = 0, hi = tn - 1, len = hi - lo;
  double q = query[i];
  while (len > 1) {
    long e = lo + len / 2;
    if (table[e] > q) hi = e; else lo = e;
    len = hi - lo;
  }
  out[i] = lo;
}
