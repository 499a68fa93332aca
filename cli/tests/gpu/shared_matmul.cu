// C = A B with A of N x K, B of K x N (N = 16, K = 32, row-major): one block of
// 16 x 16 threads, each computing one element of C, walks K in tiles of 16
// held in __shared__ memory (two barriers per tile).
#define R(reg) __nvvm_read_ptx_sreg_##reg()
#define __shared__ __attribute__((shared))
#define N 16
#define K 32
#define TILE 16

extern "C" __attribute__((global)) void shared_matmul(float *c, const float *a, const float *b) {
  __shared__ float ta[TILE][TILE];
  __shared__ float tb[TILE][TILE + 1];
  int x = R(tid_x), y = R(tid_y);
  float sum = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    ta[y][x] = a[y * K + k0 + x];
    tb[y][x] = b[(k0 + y) * N + x];
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      sum += ta[y][k] * tb[k][x];
    __syncthreads();
  }
  c[y * N + x] = sum;
}
