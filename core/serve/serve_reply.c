/* serve_reply: what every API handler uses (serve_api.c, serve_table.c,
 * serve_plot.c, serve_compare.c, serve_answers.c, ...) and serve_db.c too:
 * query arguments read, and the reply set to JSON or a JSON error. Below
 * the router, so no handler calls back up into it. */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

const char *servei_arg(struct MHD_Connection *connection, const char *name)
{
    const char *v = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
    return v && *v ? v : NULL;
}

int64_t servei_arg_int(struct MHD_Connection *connection, const char *name, int64_t min,
                       int64_t max, int64_t fallback)
{
    const char *text = servei_arg(connection, name);
    char *end = NULL;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || *end || end == text)
        return fallback;
    return v < min ? min : v > max ? max : v;
}

int servei_check_order(const char *order, servei_reply *reply)
{
    if (!order || strcmp(order, "asc") == 0 || strcmp(order, "desc") == 0)
        return 0;
    servei_reply_error(reply, 400, "order: expected asc or desc");
    return -1;
}

void servei_reply_json(servei_reply *reply, json_t *root)
{
    reply->content_type = "application/json";
    reply->body = root ? json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(root);
    if (!reply->body) {
        servei_reply_error(reply, 500, "out of memory");
        return;
    }
    reply->status = 200;
    reply->size = strlen(reply->body);
}

void servei_reply_error(servei_reply *reply, unsigned status, const char *message)
{
    json_t *root = json_object();
    json_object_set_new(root, "error", value_json_text(message));
    reply->content_type = "application/json";
    reply->status = status;
    reply->body = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(root);
    if (!reply->body) /* a last resort that needs no memory of its own */
        reply->body = util_strdup("{\"error\":\"out of memory\"}");
    reply->size = reply->body ? strlen(reply->body) : 0;
}

void servei_reply_fail(servei_reply *reply, char *err)
{
    servei_reply_error(reply, 500, err ? err : "out of memory");
    free(err);
}
