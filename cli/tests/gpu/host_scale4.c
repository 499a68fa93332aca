/* usage: host_scale4 IN.bin A N THREADS OUT.bin (scale4.cl per thread) */
#include "host.h"
#include "scale4.cl"
int main(int argc, char **argv) {
  if (argc != 6) return 2;
  long len;
  float4 *in = read_file(argv[1], &len);
  float a = (float)atof(argv[2]);
  int n = atoi(argv[3]), threads = atoi(argv[4]);
  float4 *out = calloc(len / sizeof(float4) + 1, sizeof(float4));
  FOR_EACH_THREAD(threads, scale4(out, in, a, n));
  write_file(argv[5], out, len);
  return 0;
}
