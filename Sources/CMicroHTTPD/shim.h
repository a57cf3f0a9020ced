// libmicrohttpd's C API, plus static inline shims for what Swift cannot call directly: the
// variadic MHD_start_daemon (called once here with an option array) and the info unions.
#ifndef NOSTRPUSHKIT_CMICROHTTPD_SHIM_H
#define NOSTRPUSHKIT_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// The daemon's settings, filled from Swift.
struct nostrpush_mhd_settings {
  unsigned int flags;
  /// The IPv4 address to bind, in network byte order.
  uint32_t ipv4_address;
  uint16_t port;
  unsigned int connection_limit;
  unsigned int per_ip_connection_limit;
  unsigned int idle_timeout_seconds;
  size_t connection_memory_limit;
  unsigned int listen_backlog;
};

/// The URI-log callback's type (MHD declares it only in a comment).
typedef void *(*nostrpush_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon with `settings`, every callback getting `cls`; NULL when it cannot start.
static inline struct MHD_Daemon *nostrpush_mhd_start(
    const struct nostrpush_mhd_settings *settings, MHD_AccessHandlerCallback handler,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify,
    nostrpush_mhd_uri_log_callback uri_log, void *cls) {
  struct sockaddr_in address;
  memset(&address, 0, sizeof(address));
  address.sin_family = AF_INET;
  address.sin_port = htons(settings->port);
  address.sin_addr.s_addr = settings->ipv4_address;
  struct MHD_OptionItem options[] = {
      {MHD_OPTION_SOCK_ADDR, 0, &address},
      {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)settings->connection_limit, NULL},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)settings->per_ip_connection_limit, NULL},
      {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)settings->idle_timeout_seconds, NULL},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->connection_memory_limit, NULL},
      {MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t)settings->listen_backlog, NULL},
      {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
      {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, cls},
      {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, cls},
      {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, cls},
      {MHD_OPTION_END, 0, NULL}};
  return MHD_start_daemon(settings->flags, settings->port, NULL, NULL, handler, cls, MHD_OPTION_ARRAY,
                          options, MHD_OPTION_END);
}

/// The port the daemon's listening socket is bound to (0 when unknown).
static inline uint16_t nostrpush_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// How many connections the daemon holds now.
static inline unsigned int nostrpush_mhd_current_connections(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return info == NULL ? 0 : info->num_connections;
}

/// The connection's socket, or -1.
static inline int nostrpush_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

/// Writes the client's address as text into `buffer` (at least INET6_ADDRSTRLEN bytes); false
/// when MHD does not know it.
static inline int nostrpush_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return 0;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    return inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size) != NULL;
  }
  if (address->sa_family == AF_INET6) {
    return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size) != NULL;
  }
  return 0;
}

/// Closes an upgraded connection (MHD_upgrade_action is variadic).
static inline enum MHD_Result nostrpush_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *handle) {
  return MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE);
}
#endif
