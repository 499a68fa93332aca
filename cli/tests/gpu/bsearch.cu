extern "C" __attribute__((global)) void grid_search(long *out, const double *table,
                                                const double *query, long tn, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
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
