// SHA-256 compression on the x86-64 SHA extensions (SHA256RNDS2, SHA256MSG1, SHA256MSG2).
//
// The instructions keep the eight working words in two vectors: ABEF (A in the top lane) and
// CDGH. SHA256RNDS2 performs two rounds on CDGH/ABEF with two pre-added W+K words in the low
// half of its third operand and returns the new ABEF; the old ABEF becomes the new CDGH, so the
// two vectors swap roles every two rounds. Four schedule vectors hold W[t-16..<t]; each later
// group of four words is MSG2(MSG1(W[t-16..], W[t-12..]) + W[t-7..t-4], W[t-4..]).
#include "CSHA256.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

int nostrpush_sha256_hardware_available(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  const int ssse3 = (ecx >> 9) & 1;
  const int sse41 = (ecx >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
  const int sha = (ebx >> 29) & 1;
  return ssse3 && sse41 && sha;
}

__attribute__((target("sha,ssse3,sse4.1"))) void nostrpush_sha256_hardware_blocks(
    uint32_t state[8], const uint8_t *blocks, size_t block_count) {
  // Big-endian words: reverse the bytes of each 32-bit lane.
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

  // Lanes (low to high) a b c d and e f g h → ABEF = [f e b a], CDGH = [h g d c].
  __m128i low = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i high = _mm_loadu_si128((const __m128i *)&state[4]);
  low = _mm_shuffle_epi32(low, 0xB1);    // b a d c
  high = _mm_shuffle_epi32(high, 0x1B);  // h g f e
  __m128i abef = _mm_alignr_epi8(low, high, 8);      // f e b a
  __m128i cdgh = _mm_blend_epi16(high, low, 0xF0);   // h g d c

  for (size_t block = 0; block < block_count; block++) {
    const uint8_t *data = blocks + block * 64;
    const __m128i saved_abef = abef;
    const __m128i saved_cdgh = cdgh;
    __m128i w[4];
#pragma clang loop unroll(full)
    for (int group = 0; group < 16; group++) {
      __m128i words;
      if (group < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byte_swap);
      } else {
        const __m128i w16 = w[group & 3];
        const __m128i w12 = w[(group + 1) & 3];
        const __m128i w8 = w[(group + 2) & 3];
        const __m128i w4 = w[(group + 3) & 3];
        words = _mm_sha256msg1_epu32(w16, w12);
        words = _mm_add_epi32(words, _mm_alignr_epi8(w4, w8, 4));
        words = _mm_sha256msg2_epu32(words, w4);
      }
      w[group & 3] = words;
      const __m128i wk =
          _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
    }
    abef = _mm_add_epi32(abef, saved_abef);
    cdgh = _mm_add_epi32(cdgh, saved_cdgh);
  }

  // Back to a b c d / e f g h.
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);  // a b e f
  const __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);  // g h c d
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, ghcd, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(ghcd, feba, 8));
}

#else

int nostrpush_sha256_hardware_available(void) { return 0; }

void nostrpush_sha256_hardware_blocks(uint32_t state[8], const uint8_t *blocks, size_t block_count) {
  (void)state;
  (void)blocks;
  (void)block_count;
}

#endif
