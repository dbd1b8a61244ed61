/* digest: SHA-256 (as lowercase hex or raw) and HMAC-SHA256 through
 * OpenSSL's libcrypto, opened when first needed. */
#ifndef RUNNER_DIGEST_H
#define RUNNER_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_HEX_SIZE 65 /* 64 hex digits and a NUL */

/* Hashes len bytes into hex (DIGEST_HEX_SIZE bytes). Returns 0 or -1. */
int digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_SIZE]);
/* Same, raw 32 bytes. */
int digest_sha256(const void *data, size_t len, unsigned char out[32]);
/* HMAC-SHA256 of len bytes under key, raw 32 bytes. Returns 0 or -1. */
int digest_hmac_sha256(const char *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[32]);
/* Hashes a whole file. Returns 0, or -1 with errno set (file unreadable). */
int digest_file_sha256_hex(const char *path, char hex[DIGEST_HEX_SIZE]);

#endif
