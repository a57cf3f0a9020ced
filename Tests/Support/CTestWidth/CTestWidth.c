// How many tests `swift test` runs at once in this package: twice the number of cores, unless
// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is already set.
//
// Why: Swift Testing starts every test at once by default, and Swift concurrency runs them on a
// pool of one thread per core. On a 2-core machine the first seconds of the run then hold hundreds
// of tests' setup work (key generation, signing, SQLite migrations) in one first-come-first-served
// queue, and a test that checks a deadline wakes tens of seconds late: its timer's continuation
// waits behind that queue (measured: 47-50 late wakes per run with every test started at once, none
// with 4 at a time). Twice the cores keeps the suite parallel and every timer on time.
//
// The variable is read by Swift Testing when the test process starts, so it is set by a
// constructor, which runs before main. The test process is the only program that links this.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "CTestWidth.h"

__attribute__((constructor)) static void nostrpush_set_test_width(void) {
  const char *name = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";
  if (getenv(name) != NULL) return;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  char width[24];
  snprintf(width, sizeof width, "%ld", cores * 2);
  setenv(name, width, 0);
}
