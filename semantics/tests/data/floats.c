/* A float kernel with sqrtf, fabsf and a local array. */
#include <math.h>

float norms(const float *in, int n, int tid) {
  float buf[8];
  for (int i = 0; i < 8; i++)
    buf[i] = sqrtf(fabsf(in[(i + tid) % n]));
  float s = 0.0f;
  for (int i = 0; i < 8; i++)
    s += buf[(i * 3) & 7] * 0.5f;
  return s > 1e30f ? 1e30f : s;
}

double mix(double a, float b) { return a * 0.1 + (double)b; }
