// CSHA256: the SHA-256 block function on the CPU's SHA extensions (x86-64 SHA-NI), for
// NostrEvent's SHA256 on platforms without CryptoKit. Our own code, written from the instruction
// set reference; NostrEvent keeps its Swift implementation for every other CPU.
#ifndef NOSTRPUSH_CSHA256_H
#define NOSTRPUSH_CSHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Whether this CPU runs `nostrpush_sha256_hardware_blocks`: 1 on x86-64 with SHA, SSSE3 and
/// SSE4.1, 0 everywhere else. It executes CPUID on every call; NostrEvent calls it once.
int nostrpush_sha256_hardware_available(void);

/// Compresses `block_count` consecutive 64-byte blocks at `blocks` into `state` (the eight
/// working words h0…h7 in native byte order). Call only when
/// `nostrpush_sha256_hardware_available()` returned 1; elsewhere it leaves `state` unchanged.
void nostrpush_sha256_hardware_blocks(uint32_t state[8], const uint8_t *blocks, size_t block_count);

#ifdef __cplusplus
}
#endif

#endif
