// A register width that is not a power of two >= 64 is rejected.
// RUN: tessel-opt %s --tessel-tile-and-vectorize=vector-bits=48 -verify-diagnostics

// expected-error @+1 {{vector-bits must be a power of two >= 64, got 48}}
func.func @f() {
  return
}
