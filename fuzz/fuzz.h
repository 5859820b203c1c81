/* SPDX-License-Identifier: GPL-2.0-only */
/* The libFuzzer entry point each fuzz target defines (fuzz-main.c drives it without libFuzzer). */
#ifndef PM_FUZZ_H
#define PM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
