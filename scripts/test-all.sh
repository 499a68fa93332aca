#!/usr/bin/env bash
# Runs every pllvm test on a fresh machine: installs the peers the tests call
# (clang-19, opt-22, opt-19 and lli-19, tmux for the REPL terminal test; llc-19,
# gcc, gcc-aarch64-linux-gnu and qemu-user for the native backend; graphviz and
# chromium for the pictures and the HTML trace) when they are missing, then the
# whole workspace test suite (unit, property, corpus, tidy, differential tests).
#
# `scripts/test-all.sh --long` runs the same tests in the long mode
# (`PLLVM_LONG=1`): the heavy property tests and exhaustive checks at their full
# case counts and scopes instead of the smaller defaults (CONTRIBUTING.md, "Long
# modes"). Both modes run every test; only counts and scopes differ.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  --long) export PLLVM_LONG=1 ;;
  "") ;;
  *) echo "usage: scripts/test-all.sh [--long]" >&2; exit 2 ;;
esac

# Debian packages the tests need, with one command each that proves it is there.
need=()
command -v clang-19 >/dev/null 2>&1 || need+=(clang-19)
command -v opt-22   >/dev/null 2>&1 || need+=(llvm-22)
command -v opt-19   >/dev/null 2>&1 || need+=(llvm-19)
command -v tmux     >/dev/null 2>&1 || need+=(tmux)
# The native backend (docs/native.md): llc-19 for the widening's objects, the AArch64
# cross toolchain and qemu-user for the NEON runs, gcc for the scalar-lane C.
command -v llc-19                >/dev/null 2>&1 || need+=(llvm-19)
command -v gcc                   >/dev/null 2>&1 || need+=(gcc)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64          >/dev/null 2>&1 || need+=(qemu-user)
# The teaching views (docs/tracing.md, the pictures, docs/tutorial.md): Graphviz lays
# out every CFG picture, headless Chromium opens the HTML trace.
command -v dot      >/dev/null 2>&1 || need+=(graphviz)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "test-all: installing ${need[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# cargo-nextest (on the CI machine) runs the tests of every binary side by side,
# each in its own process (.config/nextest.toml); doc-tests it does not run, so
# cargo runs those. Without nextest, cargo test runs the same tests.
if cargo nextest --version >/dev/null 2>&1; then
  # The build first, on its own, so that the log tells building from testing;
  # --timings leaves each crate's compile time in target/cargo-timings/.
  start=$SECONDS
  cargo test --workspace --no-run --locked --timings
  echo "test-all: build: $((SECONDS - start)) s" >&2
  start=$SECONDS
  cargo nextest run --workspace --locked
  echo "test-all: nextest run: $((SECONDS - start)) s" >&2
  cargo test --workspace --doc --locked
else
  echo "test-all: cargo-nextest not found, running cargo test (same tests, slower)"
  cargo test --workspace --locked
fi
