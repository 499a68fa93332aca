// A tiled transpose through __shared__ memory: out = in transposed, for a
// 16 x 16 matrix and one block of 16 x 16 threads; the tile has a padding
// column, as on a GPU to keep the column reads off one bank.
#define R(reg) __nvvm_read_ptx_sreg_##reg()
#define __shared__ __attribute__((shared))
#define TILE 16

extern "C" __attribute__((global)) void shared_transpose(int *out, const int *in) {
  __shared__ int tile[TILE][TILE + 1];
  int x = R(tid_x), y = R(tid_y);
  tile[y][x] = in[y * TILE + x];
  __syncthreads();
  out[y * TILE + x] = tile[x][y];
}
