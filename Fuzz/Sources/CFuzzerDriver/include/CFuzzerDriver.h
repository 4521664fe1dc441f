#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for a program that has its own main (compiler-rt FuzzerInterface.h):
/// parses libFuzzer's flags from argv and runs the fuzzing loop with `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
