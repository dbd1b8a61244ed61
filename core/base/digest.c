/* digest: SHA-256 of buffers and files (provenance, point identities) and
 * HMAC-SHA256 (webhook signatures), through OpenSSL's libcrypto. libcrypto
 * is opened with dlopen when the first hash is asked for (lazylib.h): its
 * load, bound at once, was a third of a reader's start-up, and readers
 * (show, sweeps, export ...) hash nothing. */
/* The 1.1.1 API: SHA256_Init and friends without deprecation warnings. */
#define OPENSSL_API_COMPAT 10101

#include "digest.h"

#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit_status.h"
#include "lazylib.h"
#include "log.h"

/* The libcrypto functions this file calls, by their own names. */
typedef struct crypto_api {
    int (*SHA256_Init)(SHA256_CTX *ctx);
    int (*SHA256_Update)(SHA256_CTX *ctx, const void *data, size_t len);
    int (*SHA256_Final)(unsigned char *md, SHA256_CTX *ctx);
    EVP_MD_CTX *(*EVP_MD_CTX_new)(void);
    void (*EVP_MD_CTX_free)(EVP_MD_CTX *ctx);
    const EVP_MD *(*EVP_sha256)(void);
    int (*EVP_DigestInit_ex)(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
    int (*EVP_DigestUpdate)(EVP_MD_CTX *ctx, const void *data, size_t len);
    int (*EVP_DigestFinal_ex)(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *len);
    unsigned char *(*HMAC)(const EVP_MD *md, const void *key, int key_len,
                           const unsigned char *data, size_t data_len, unsigned char *md_out,
                           unsigned int *md_len);
} crypto_api;

#define CRYPTO_SYMBOL(name)                                                                        \
    {                                                                                              \
#name, offsetof(crypto_api, name)                                                          \
    }
static const lazylib_symbol crypto_symbols[] = {
    CRYPTO_SYMBOL(SHA256_Init),        CRYPTO_SYMBOL(SHA256_Update),
    CRYPTO_SYMBOL(SHA256_Final),       CRYPTO_SYMBOL(EVP_MD_CTX_new),
    CRYPTO_SYMBOL(EVP_MD_CTX_free),    CRYPTO_SYMBOL(EVP_sha256),
    CRYPTO_SYMBOL(EVP_DigestInit_ex),  CRYPTO_SYMBOL(EVP_DigestUpdate),
    CRYPTO_SYMBOL(EVP_DigestFinal_ex), CRYPTO_SYMBOL(HMAC),
};
#undef CRYPTO_SYMBOL

static crypto_api crypto;
static lazylib_state crypto_state = LAZYLIB_STATE_INIT;
/* Set once the table is filled: every point hashes twice, and the check
 * before each must not take lazylib_load's lock. */
static atomic_int crypto_ready;

/* Fills the table on first use. A libcrypto that cannot be opened (libssl3
 * is a dependency of the package: a broken install) ends the process with
 * the loader's line and exit 2: the first hash comes before anything is
 * stored (a sweep hashes its script before it opens the database; notify
 * its summary before it queues it), and a hash that failed would otherwise
 * reach the user as some caller's "out of memory". */
static void crypto_load(void)
{
    if (atomic_load_explicit(&crypto_ready, memory_order_acquire))
        return;
    static const lazylib_spec spec = {
        .soname = "libcrypto.so.3",
        .override_env = "RUNNER_LIBCRYPTO",
        .library = "libcrypto",
        .package = "libssl3",
        .needed_by = "hashing (point identities, provenance)",
        .symbols = crypto_symbols,
        .symbol_count = sizeof crypto_symbols / sizeof crypto_symbols[0],
    };
    char *err = NULL;
    if (lazylib_load(&crypto_state, &spec, &crypto, &err) != 0) {
        log_print(LOG_LEVEL_ERROR, "runner: %s\n", err ? err : "out of memory");
        exit(EXIT_USAGE);
    }
    atomic_store_explicit(&crypto_ready, 1, memory_order_release);
}

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
    crypto_load();
    SHA256_CTX ctx;
    return crypto.SHA256_Init(&ctx) == 1 && crypto.SHA256_Update(&ctx, data, len) == 1 &&
                   crypto.SHA256_Final(out, &ctx) == 1
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

int digest_hmac_sha256(const char *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[32])
{
    crypto_load();
    if (key_len > 0x7fffffff)
        return -1;
    unsigned int out_len = 0;
    if (!crypto.HMAC(crypto.EVP_sha256(), key, (int)key_len, data, len, out, &out_len))
        return -1;
    return out_len == 32 ? 0 : -1;
}

int digest_file_sha256_hex(const char *path, char hex[DIGEST_HEX_SIZE])
{
    crypto_load();
    int rc = -1;
    unsigned char buf[65536], raw[32];
    unsigned int raw_len = 0;
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = crypto.EVP_MD_CTX_new();
    if (!f || !ctx || crypto.EVP_DigestInit_ex(ctx, crypto.EVP_sha256(), NULL) != 1)
        goto done;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (crypto.EVP_DigestUpdate(ctx, buf, n) != 1)
            goto done;
    if (ferror(f) || crypto.EVP_DigestFinal_ex(ctx, raw, &raw_len) != 1)
        goto done;
    to_hex(raw, sizeof raw, hex);
    rc = 0;
done:
    if (f) {
        int saved = errno;
        fclose(f);
        errno = saved;
    }
    if (ctx)
        crypto.EVP_MD_CTX_free(ctx);
    return rc;
}
