// Calls in GPU kernels (docs/launch.md): a device helper left as a call at -O0 (inlined
// when read), and the nvptx warp register %laneid.
__attribute__((device)) int twice(int x) { return 2 * x; }

extern "C" __attribute__((global)) void calls(int *out, int *lanes) {
  int i = __nvvm_read_ptx_sreg_tid_x();
  out[i] = twice(i) + 1;
  lanes[i] = __nvvm_read_ptx_sreg_laneid();
}
