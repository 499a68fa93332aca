// Launches of three dimensions (docs/launch.md): CUDA's threadIdx, blockIdx, blockDim and
// gridDim in every dimension (the nvvm special registers), each thread writing at its
// row-major global position.
#define R(reg) __nvvm_read_ptx_sreg_##reg()

extern "C" __attribute__((global)) void dims(int *ids, int *sizes) {
  int x = R(ctaid_x) * R(ntid_x) + R(tid_x);
  int y = R(ctaid_y) * R(ntid_y) + R(tid_y);
  int z = R(ctaid_z) * R(ntid_z) + R(tid_z);
  int at = x + R(nctaid_x) * R(ntid_x) * (y + R(nctaid_y) * R(ntid_y) * z);
  ids[at] = R(tid_x) + 10 * R(tid_y) + 100 * R(tid_z) + 1000 * R(ctaid_x) +
            10000 * R(ctaid_y) + 100000 * R(ctaid_z);
  sizes[at] = R(ntid_x) + 10 * R(ntid_y) + 100 * R(ntid_z) + 1000 * R(nctaid_x) +
              10000 * R(nctaid_y) + 100000 * R(nctaid_z);
}
