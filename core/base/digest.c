/* digest: SHA-256 of buffers and files (provenance, point identities). */
/* The 1.1.1 API: SHA256_Init and friends without deprecation warnings. */
#define OPENSSL_API_COMPAT 10101

#include "digest.h"

#include <errno.h>
#include <stdio.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

static void to_hex(const unsigned char *raw, size_t len, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        hex[2 * i] = digits[raw[i] >> 4];
        hex[2 * i + 1] = digits[raw[i] & 15];
    }
    hex[2 * len] = '\0';
}

/* Every point hashes twice, a short text each time: OpenSSL's SHA-256
 * functions (SHA-NI where the CPU has it) without the EVP layer, whose
 * dispatch cost half as much again as the hash. Deprecated in OpenSSL 3
 * but kept there; OPENSSL_API_COMPAT above says which API this file uses. */
int digest_sha256(const void *data, size_t len, unsigned char out[32])
{
    SHA256_CTX ctx;
    return SHA256_Init(&ctx) == 1 && SHA256_Update(&ctx, data, len) == 1 &&
                   SHA256_Final(out, &ctx) == 1
               ? 0
               : -1;
}

int digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_HEX_SIZE])
{
    unsigned char raw[32];
    if (digest_sha256(data, len, raw) != 0)
        return -1;
    to_hex(raw, sizeof raw, hex);
    return 0;
}

int digest_file_sha256_hex(const char *path, char hex[DIGEST_HEX_SIZE])
{
    int rc = -1;
    unsigned char buf[65536], raw[32];
    unsigned int raw_len = 0;
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!f || !ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
        goto done;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (EVP_DigestUpdate(ctx, buf, n) != 1)
            goto done;
    if (ferror(f) || EVP_DigestFinal_ex(ctx, raw, &raw_len) != 1)
        goto done;
    to_hex(raw, sizeof raw, hex);
    rc = 0;
done:
    if (f) {
        int saved = errno;
        fclose(f);
        errno = saved;
    }
    EVP_MD_CTX_free(ctx);
    return rc;
}
