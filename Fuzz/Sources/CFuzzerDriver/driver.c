// LLVMFuzzerRunDriver lives in libclang_rt.fuzzer, linked by -sanitize=fuzzer; this target only
// declares it.
#include "CFuzzerDriver.h"
