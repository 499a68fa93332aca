// Launches (docs/launch.md): a grid-stride loop reads the grid's size (%nctaid.x) and a second
// dimension (%tid.y, 0 in pllvm's one-dimensional launches).
extern "C" __attribute__((global)) void gridstride(int *out, int n) {
  for (int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
       i < n; i += __nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x())
    out[i] = i + 1000 * __nvvm_read_ptx_sreg_tid_y();
}
