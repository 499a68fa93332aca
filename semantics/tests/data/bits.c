/* Integer bit tricks selected by a switch. */
unsigned bits(unsigned x, int k) {
  switch (k) {
  case 0: return __builtin_popcount(x);
  case 1: return x & (x - 1);
  case 2: return x ^ (x >> 1);
  case 3: return (x << 3) | (x >> 29);
  case 7: return x ? __builtin_ctz(x) : 32u;
  default: return ~x;
  }
}

long long wide(long long a, unsigned char b, short c) {
  long long r = a / (b | 1) + (a % 7) - c;
  return r > 0 ? r : -r;
}
