#!/bin/sh
# A C compiler/linker driver for binaries that run on any x86-64 Linux with glibc >= 2.17 (the
# manylinux2014 baseline of the wheel): zig's clang, from the `ziglang` package on PyPI, linking
# against glibc 2.17's symbol versions. `make wheel` links the emulator with it. Arguments that
# zig's driver does not take are dropped.
args=""
for a in "$@"; do
  case "$a" in
    --target=*|-target) ;;
    *) args="$args '$(printf %s "$a" | sed "s/'/'\\\\''/g")'" ;;
  esac
done
eval exec "\"\${ACCELBRAKE_PYTHON:-python3}\" -m ziglang cc -target x86_64-linux-gnu.2.17 $args"
