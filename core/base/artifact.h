/* artifact: a file a point leaves behind (a command's stdout, stderr or a
 * declared output file), held in memory from the point's end until the
 * writer stores it beside the point (store_artifact.c), content-addressed
 * by SHA-256. */
#ifndef RUNNER_ARTIFACT_H
#define RUNNER_ARTIFACT_H

#include <stddef.h>

typedef struct artifact {
    struct artifact *next;
    char *name;      /* "stdout", "stderr", or the file's name */
    char sha256[65]; /* of data, hex */
    size_t size;
    unsigned char *data; /* size bytes, malloc'd */
} artifact;

/* Frees the whole list. Accepts NULL. */
void artifact_list_free(artifact *list);

#endif
