/* usage: host_bsearch TABLE.bin QUERY.bin N THREADS OUT.bin (bsearch.cl per thread) */
#include "host.h"
#include "bsearch.cl"
int main(int argc, char **argv) {
  if (argc != 6) return 2;
  long tlen, qlen;
  double *table = read_file(argv[1], &tlen);
  double *query = read_file(argv[2], &qlen);
  int n = atoi(argv[3]), threads = atoi(argv[4]);
  long *out = calloc(n, sizeof(long));
  FOR_EACH_THREAD(threads, grid_search(out, table, query, tlen / (long)sizeof(double), n));
  write_file(argv[5], out, (long)n * sizeof(long));
  return 0;
}
