/* serve_watch: the deadline for a request's head (docs/serve.md). The
 * connection timeout of libmicrohttpd counts idle time only, so a client
 * that sends a header line every few seconds keeps its connection for
 * ever (slowloris). Here each connection is tracked from its start, and
 * again from each answer's end while it waits for the next request; the
 * server's main thread sweeps the table every second and shuts down the
 * socket of any connection that has waited longer than the deadline.
 * libmicrohttpd then reads the end of the stream and closes it itself. */
#include "serve_int.h"

#include <stdlib.h>
#include <sys/socket.h>

#include "base/util.h"

int servei_watch_init(servei_watch *w, size_t slot_count, double head_deadline_s, char **err)
{
    w->slots = calloc(slot_count, sizeof *w->slots);
    if (!w->slots)
        return util_fail(err, "out of memory");
    for (size_t i = 0; i < slot_count; i++)
        w->slots[i].fd = -1;
    w->slot_count = slot_count;
    w->head_deadline_s = head_deadline_s;
    pthread_mutex_init(&w->lock, NULL);
    return 0;
}

void servei_watch_free(servei_watch *w)
{
    if (!w->slots)
        return;
    pthread_mutex_destroy(&w->lock);
    free(w->slots);
    w->slots = NULL;
}

/* libmicrohttpd calls CLOSED before it closes the socket, and the sweep
 * shuts a socket down under the same lock, so it never touches a
 * descriptor number the process has reused. */
void servei_watch_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                             enum MHD_ConnectionNotificationCode code)
{
    servei_watch *w = cls;
    servei_watch_slot *slot = *socket_context;
    pthread_mutex_lock(&w->lock);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (slot)
            slot->fd = -1;
        *socket_context = NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        /* One slot per connection the limit allows, and a few more: a
         * connection without one is merely untracked. */
        for (size_t i = 0; info && i < w->slot_count; i++)
            if (w->slots[i].fd < 0) {
                w->slots[i] = (servei_watch_slot){ .fd = info->connect_fd,
                                                   .waiting_since_s = util_monotonic() };
                *socket_context = &w->slots[i];
                break;
            }
    }
    pthread_mutex_unlock(&w->lock);
}

static servei_watch_slot *slot_of(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void servei_watch_head(servei_watch *w, struct MHD_Connection *connection)
{
    servei_watch_slot *slot = slot_of(connection);
    if (!slot)
        return;
    pthread_mutex_lock(&w->lock);
    slot->answering = 1;
    pthread_mutex_unlock(&w->lock);
}

void servei_watch_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                            enum MHD_RequestTerminationCode code)
{
    (void)request_context;
    (void)code;
    servei_watch *w = cls;
    servei_watch_slot *slot = slot_of(connection);
    if (!slot)
        return;
    pthread_mutex_lock(&w->lock);
    slot->answering = 0; /* the next request's head starts its own clock */
    slot->waiting_since_s = util_monotonic();
    pthread_mutex_unlock(&w->lock);
}

size_t servei_watch_sweep(servei_watch *w, double now_s)
{
    size_t closed = 0;
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < w->slot_count; i++) {
        servei_watch_slot *slot = &w->slots[i];
        if (slot->fd < 0 || slot->answering || now_s - slot->waiting_since_s <= w->head_deadline_s)
            continue;
        shutdown(slot->fd, SHUT_RDWR);
        slot->answering = 1; /* once is enough: it is closing */
        closed++;
    }
    pthread_mutex_unlock(&w->lock);
    return closed;
}
