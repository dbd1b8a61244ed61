/* test_webhook: the parts of delivery that need no receiver: the signature
 * (RFC 4231's HMAC-SHA256 vector), what of a URL may be shown, the settings
 * and their environment variables, and a receiver that is not there (every
 * attempt recorded, nothing of the URL beyond its host in any message). The
 * answers of a live receiver are tests/e2e/test_webhook.sh's. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "testdb.h"
#include "store/store.h"
#include "base/util.h"
#include "notify/webhook.h"

static void test_signature(void)
{
    char sig[WEBHOOK_SIGNATURE_SIZE];
    const char *data = "what do ya want for nothing?";
    CHECK_INT_EQ(webhook_signature("Jefe", data, strlen(data), sig), 0);
    CHECK_STR_EQ(sig, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void test_url_display(void)
{
    char buf[200];
    webhook_url_display("https://user:pw@hooks.slack.com/services/T0/B0/XXXX?x=1", buf, sizeof buf);
    CHECK_STR_EQ(buf, "https://hooks.slack.com/\xe2\x80\xa6");
    webhook_url_display("http://127.0.0.1:8080/hooks/TOKEN", buf, sizeof buf);
    CHECK_STR_EQ(buf, "http://127.0.0.1/\xe2\x80\xa6");
    webhook_url_display("not a url", buf, sizeof buf);
    CHECK_STR_EQ(buf, "(a webhook URL that cannot be parsed)");
}

static void test_target(void)
{
    webhook_target t;
    char *err = NULL;
    unsetenv("RUNNER_WEBHOOK_TIMEOUT_S");
    unsetenv("RUNNER_WEBHOOK_BACKOFF_S");
    CHECK_INT_EQ(webhook_target_init(&t, "https://example.org/hook", "", &err), 0);
    CHECK(t.secret == NULL);
    CHECK_NEAR(t.connect_timeout_s, 5, 0);
    CHECK_NEAR(t.total_timeout_s, 20, 0);
    CHECK_INT_EQ(t.max_attempts, 4);
    CHECK_NEAR(t.backoff_s, 1, 0);

    setenv("RUNNER_WEBHOOK_TIMEOUT_S", "2", 1);
    setenv("RUNNER_WEBHOOK_BACKOFF_S", "0", 1);
    CHECK_INT_EQ(webhook_target_init(&t, "http://example.org/hook", "key", &err), 0);
    CHECK_STR_EQ(t.secret, "key");
    CHECK_NEAR(t.total_timeout_s, 2, 0);
    CHECK_NEAR(t.connect_timeout_s, 2, 0);
    CHECK_NEAR(t.backoff_s, 0, 0);

    setenv("RUNNER_WEBHOOK_BACKOFF_S", "soon", 1);
    CHECK_INT_EQ(webhook_target_init(&t, "http://example.org/hook", NULL, &err), -1);
    CHECK_STR_EQ(err, "RUNNER_WEBHOOK_BACKOFF_S=soon: expected a number of seconds from 0 to 3600");
    free(err);
    err = NULL;
    unsetenv("RUNNER_WEBHOOK_BACKOFF_S");
    unsetenv("RUNNER_WEBHOOK_TIMEOUT_S");

    const char *refused[] = { "ftp://example.org/TOKEN", "file:///etc/TOKEN", "TOKEN", "" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_INT_EQ(webhook_target_init(&t, refused[i], NULL, &err), -1);
        CHECK(err && !strstr(err, "TOKEN"));
        free(err);
        err = NULL;
    }
}

static int body_of_braces(store *s, int64_t sweep_id, void *ctx, char **body, char **err)
{
    (void)s, (void)sweep_id, (void)ctx, (void)err;
    *body = util_strdup("{}");
    return *body ? 0 : -1;
}

/* A port on 127.0.0.1 nobody listens on (bound, then closed). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    socklen_t len = sizeof addr;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
        port = ntohs(addr.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static void test_nobody_listening(void)
{
    const char *path = testdb_path("webhook-refused.db");
    char url[200];
    store *s = testdb_open(path, NULL);
    if (!s)
        return;
    char *err = NULL;
    store_sweep_info info = { .script_path = "x.lua",
                              .script_text = "",
                              .script_sha256 = "",
                              .runner_version = "0.1.0",
                              .host = "h",
                              .command_line = "runner" };
    int64_t sweep_id = 0;
    CHECK_INT_EQ(store_sweep_begin(s, &info, &sweep_id, &err), 0);
    store_outbox_request request = { .format = "generic", .build = body_of_braces };
    CHECK_INT_EQ(store_sweep_end_with_outbox(s, sweep_id, "ok", 0, &request, &err), 0);
    CHECK_INT_EQ(request.id, 1);

    snprintf(url, sizeof url, "http://127.0.0.1:%d/hooks/SECRETTOKEN123?key=QUERYSECRET",
             free_port());
    webhook_target t;
    CHECK_INT_EQ(webhook_target_init(&t, url, NULL, &err), 0);
    t.max_attempts = 2;
    t.backoff_s = 0;
    char *message = NULL;
    CHECK_INT_EQ(webhook_deliver(s, request.id, &t, &message), WEBHOOK_PENDING);
    CHECK(message && strstr(message, "Failed to connect to 127.0.0.1") &&
          strstr(message, "(attempt 2 of 2)"));
    CHECK(message && !strstr(message, "SECRETTOKEN123") && !strstr(message, "QUERYSECRET"));
    free(message);
    store_outbox_row row;
    CHECK_INT_EQ(store_outbox_read(s, request.id, &row, &err), 0);
    CHECK_INT_EQ(row.attempts, 2);
    CHECK(row.delivered_at == NULL);
    CHECK_INT_EQ(row.due, 1);
    store_outbox_row_clear(&row);
    store_close(s);
}

int main(void)
{
    test_signature();
    test_url_display();
    test_target();
    test_nobody_listening();
    return check_done("test_webhook");
}
