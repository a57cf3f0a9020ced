// The parts of libsecp256k1 NostrPushKit uses: the base API, ECDH, x-only keys and BIP-340 Schnorr.
#ifndef NOSTRPUSHKIT_CSECP256K1_SHIM_H
#define NOSTRPUSHKIT_CSECP256K1_SHIM_H
#include <secp256k1.h>
#include <secp256k1_ecdh.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

/* Swift 6 cannot read the mutable C global `secp256k1_context_static` safely; this returns it. */
static inline const secp256k1_context *nostrpushkit_context_static(void) {
  return secp256k1_context_static;
}
#endif
