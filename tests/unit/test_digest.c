/* test_digest: SHA-256 against the FIPS 180-2 test vectors, and file hashing
 * (plugin provenance) agreeing with buffer hashing (point identities). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/digest.h"

static char tmp_dir[512];

#define SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA256_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA256_TWO_BLOCKS "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"

static void test_vectors(void)
{
    char hex[DIGEST_HEX_SIZE];
    CHECK_INT_EQ(digest_sha256_hex("", 0, hex), 0);
    CHECK_STR_EQ(hex, SHA256_EMPTY);
    CHECK_INT_EQ(digest_sha256_hex("abc", 3, hex), 0);
    CHECK_STR_EQ(hex, SHA256_ABC);
    /* FIPS 180-2 appendix B.2: a message spanning two blocks. */
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK_INT_EQ(digest_sha256_hex(two_blocks, strlen(two_blocks), hex), 0);
    CHECK_STR_EQ(hex, SHA256_TWO_BLOCKS);

    /* The raw form is the same digest, byte for byte. */
    unsigned char raw[32];
    CHECK_INT_EQ(digest_sha256("abc", 3, raw), 0);
    CHECK_INT_EQ(raw[0], 0xba);
    CHECK_INT_EQ(raw[1], 0x78);
    CHECK_INT_EQ(raw[31], 0xad);

    /* Only len bytes count, not the rest of the string. */
    CHECK_INT_EQ(digest_sha256_hex("abcdef", 3, hex), 0);
    CHECK_STR_EQ(hex, SHA256_ABC);
}

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, len, f);
    return fclose(f) == 0 && written == len ? 0 : -1;
}

static void test_file(void)
{
    char path[600], file_hex[DIGEST_HEX_SIZE], buffer_hex[DIGEST_HEX_SIZE];
    snprintf(path, sizeof path, "%s/digest_input.bin", tmp_dir);

    CHECK_INT_EQ(write_file(path, "abc", 3), 0);
    CHECK_INT_EQ(digest_file_sha256_hex(path, file_hex), 0);
    CHECK_STR_EQ(file_hex, SHA256_ABC);

    CHECK_INT_EQ(write_file(path, "", 0), 0);
    CHECK_INT_EQ(digest_file_sha256_hex(path, file_hex), 0);
    CHECK_STR_EQ(file_hex, SHA256_EMPTY);

    /* Bigger than the 64 KiB read buffer, with every byte value: the file is
     * hashed in pieces, and the pieces must add up to the buffer's digest. */
    size_t len = 200000;
    unsigned char *data = malloc(len);
    CHECK(data != NULL);
    if (!data)
        return;
    for (size_t i = 0; i < len; i++)
        data[i] = (unsigned char)(i * 7 + i / 256);
    CHECK_INT_EQ(write_file(path, data, len), 0);
    CHECK_INT_EQ(digest_file_sha256_hex(path, file_hex), 0);
    CHECK_INT_EQ(digest_sha256_hex(data, len, buffer_hex), 0);
    CHECK_STR_EQ(file_hex, buffer_hex);
    CHECK_INT_EQ(strlen(file_hex), 64);
    free(data);
    remove(path);

    /* A missing file: -1 with errno. */
    snprintf(path, sizeof path, "%s/digest_no_such_file.bin", tmp_dir);
    errno = 0;
    CHECK_INT_EQ(digest_file_sha256_hex(path, file_hex), -1);
    CHECK_INT_EQ(errno, ENOENT);
}

int main(void)
{
    const char *tmp = getenv("RUNNER_TEST_TMP");
    snprintf(tmp_dir, sizeof tmp_dir, "%s", tmp && *tmp ? tmp : "/tmp");

    test_vectors();
    test_file();
    return check_done("test_digest");
}
