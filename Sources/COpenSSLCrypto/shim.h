// OpenSSL's libcrypto (Linux only): ES256 for the APNs provider token. Swift imports these
// declarations directly; the shims cover the function-like macros it cannot.
#ifndef NOSTRPUSHKIT_COPENSSLCRYPTO_SHIM_H
#define NOSTRPUSHKIT_COPENSSLCRYPTO_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

/// The key's base type (EVP_PKEY_EC for an elliptic-curve key).
static inline int nostrpush_evp_pkey_base_id(const EVP_PKEY *key) { return EVP_PKEY_get_base_id(key); }
/// EVP_PKEY_EC, which is a macro Swift may not import.
static inline int nostrpush_evp_pkey_ec(void) { return EVP_PKEY_EC; }
/// A fresh P-256 key (EVP_EC_gen is a macro over a variadic function Swift cannot call).
static inline EVP_PKEY *nostrpush_ec_p256_generate(void) { return EVP_EC_gen("P-256"); }
#endif
