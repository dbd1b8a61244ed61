/* digest: SHA-256 of buffers and files (provenance, point identities). */
#include "digest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <openssl/evp.h>

static void to_hex(const unsigned char *raw, size_t len, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        hex[2 * i] = digits[raw[i] >> 4];
        hex[2 * i + 1] = digits[raw[i] & 15];
    }
    hex[2 * len] = '\0';
}

/* Every point hashes twice: one context per thread (freed when the thread
 * ends), and the algorithm fetched once, keep that to a fraction of a
 * microsecond. */
static EVP_MD *sha256_md;
static pthread_key_t ctx_key;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void free_thread_ctx(void *ctx) { EVP_MD_CTX_free(ctx); }

static void fetch_sha256(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (pthread_key_create(&ctx_key, free_thread_ctx) != 0) {
        EVP_MD_free(sha256_md);
        sha256_md = NULL;
    }
}

int digest_sha256(const void *data, size_t len, unsigned char out[32])
{
    unsigned int out_len = 0;
    pthread_once(&sha256_once, fetch_sha256);
    EVP_MD_CTX *ctx = sha256_md ? pthread_getspecific(ctx_key) : NULL;
    if (sha256_md && !ctx && (ctx = EVP_MD_CTX_new()) != NULL &&
        pthread_setspecific(ctx_key, ctx) != 0) {
        EVP_MD_CTX_free(ctx);
        ctx = NULL;
    }
    if (!ctx)
        return EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL) == 1 ? 0 : -1;
    return EVP_DigestInit_ex(ctx, sha256_md, NULL) == 1 && EVP_DigestUpdate(ctx, data, len) == 1 &&
                   EVP_DigestFinal_ex(ctx, out, &out_len) == 1
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
