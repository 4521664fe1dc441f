// Typed entry points for libcurl's variadic setters/getters and for OpenSSL macros, which Swift
// cannot call directly. Nothing here holds state; ownership stays with the Swift wrappers.
#ifndef CHTTPDNSSHIMS_H
#define CHTTPDNSSHIMS_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stddef.h>

// MARK: curl_easy_setopt / curl_easy_getinfo
CURLcode httpdns_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode httpdns_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
CURLcode httpdns_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value);
CURLcode httpdns_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback callback);
CURLcode httpdns_easy_setopt_read_function(CURL *easy, curl_read_callback callback);
CURLcode httpdns_easy_setopt_xferinfo_function(CURL *easy, curl_xferinfo_callback callback);
CURLcode httpdns_easy_setopt_seek_function(CURL *easy, curl_seek_callback callback);
CURLcode httpdns_easy_setopt_prereq_function(CURL *easy, curl_prereq_callback callback);
/// CURLOPT_SOCKOPTFUNCTION.
CURLcode httpdns_easy_setopt_sockopt_function(CURL *easy, curl_sockopt_callback callback);
/// CURLOPT_DEBUGFUNCTION (NULL: none).
CURLcode httpdns_easy_setopt_debug_function(CURL *easy, curl_debug_callback callback);

/// Told when libcurl has opened a socket (`opened` 1) and when it is about to close one (0).
typedef void (*httpdns_socket_lifecycle_callback)(int fd, int opened);
/// Sets the process's socket lifecycle callback (once, before any transfer).
void httpdns_set_socket_lifecycle_callback(httpdns_socket_lifecycle_callback callback);
/// CURLOPT_OPENSOCKETFUNCTION and CURLOPT_CLOSESOCKETFUNCTION: libcurl's sockets are opened
/// close-on-exec (libcurl 7.88 opens them inheritable, so a child process would keep connections
/// open) and each open and close is reported to the lifecycle callback; closing is close(2).
CURLcode httpdns_easy_set_socket_lifecycle(CURL *easy);

CURLcode httpdns_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode httpdns_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode httpdns_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLcode httpdns_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **value);
/// The OpenSSL `SSL *` of the connection a transfer is using, or NULL (CURLINFO_TLS_SSL_PTR).
SSL *httpdns_easy_tls_session(CURL *easy);

// MARK: curl_multi_setopt / curl_share_setopt
typedef int (*httpdns_socket_callback)(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp);
typedef int (*httpdns_timer_callback)(CURLM *multi, long timeout_ms, void *userp);
CURLMcode httpdns_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode httpdns_multi_set_callbacks(CURLM *multi, httpdns_socket_callback socket_cb,
                                      httpdns_timer_callback timer_cb, void *userp);
CURLSHcode httpdns_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

// MARK: epoll (Glibc's Swift module does not export sys/epoll.h; epoll_event is packed)
enum { HTTPDNS_EVENT_IN = 1, HTTPDNS_EVENT_OUT = 2, HTTPDNS_EVENT_ERROR = 4 };
enum { HTTPDNS_WATCH_ADD = 0, HTTPDNS_WATCH_MODIFY = 1, HTTPDNS_WATCH_REMOVE = 2 };
struct httpdns_event { int fd; int events; };
/// curl_multi_socket_all (deprecated in libcurl for event loops, used here only to restart a transfer
/// whose next connection attempt libcurl 7.88 left on a long timer; see TransferEngine.runDueTimers).
CURLMcode httpdns_multi_socket_all(CURLM *multi, int *running);
/// epoll_create1(EPOLL_CLOEXEC).
int httpdns_epoll_create(void);
/// A non-blocking, close-on-exec eventfd.
int httpdns_eventfd(void);
/// The process environment (`environ`, "NAME=value" strings, then NULL): NULL after clearenv().
char **httpdns_environment(void);
/// A non-blocking, close-on-exec CLOCK_MONOTONIC timerfd.
int httpdns_timerfd(void);
/// Arms `fd` to fire once after `nanoseconds` (0: at once), or disarms it when negative.
/// Returns 0 or -1 (errno set).
int httpdns_timerfd_arm(int fd, long long nanoseconds);
/// epoll_ctl with HTTPDNS_WATCH_* and HTTPDNS_EVENT_* values. Returns 0 or -1 (errno set).
int httpdns_epoll_ctl(int epoll_fd, int operation, int fd, int events);
/// epoll_wait, translating events to HTTPDNS_EVENT_* (HUP and ERR become HTTPDNS_EVENT_ERROR).
int httpdns_epoll_wait(int epoll_fd, struct httpdns_event *events, int capacity, int timeout_ms);
/// ppoll over `count` descriptors: each entry's `events` (HTTPDNS_EVENT_IN / _OUT) is what to wait
/// for on entry and what happened on return (HUP and ERR become HTTPDNS_EVENT_ERROR, 0 for none).
/// Waits at most `timeout_ns` nanoseconds. Returns how many are ready, 0 on time-out, or -1 (errno set).
int httpdns_poll_wait(struct httpdns_event *events, int count, long long timeout_ns);

// MARK: Trust (see httpdns_tls.h)
#include "httpdns_tls.h"

// MARK: X.509
STACK_OF(X509) *httpdns_x509_stack_new(void);
int httpdns_x509_stack_count(const STACK_OF(X509) *stack);
X509 *httpdns_x509_stack_get(const STACK_OF(X509) *stack, int index);
/// Takes ownership of `cert` on success (returns 1), otherwise returns 0.
int httpdns_x509_stack_push(STACK_OF(X509) *stack, X509 *cert);
void httpdns_x509_stack_free(STACK_OF(X509) *stack);
/// Parses every certificate in a PEM buffer into `stack`. Returns the number added, or -1 with a
/// message in `error` when a block is malformed.
int httpdns_pem_read_certificates(const char *pem, size_t length, STACK_OF(X509) *stack,
                                  char *error, size_t error_length);
/// Parses one DER certificate; NULL if malformed.
X509 *httpdns_der_read_certificate(const unsigned char *der, size_t length);
/// DER encoding into a buffer the caller frees with `OPENSSL_free` via `httpdns_free`. Returns length or -1.
int httpdns_x509_to_der(X509 *cert, unsigned char **out);
void httpdns_free(void *pointer);
/// RFC 2253 one-line form of the subject / issuer. Returns the string length, or -1.
int httpdns_x509_subject(X509 *cert, char *buffer, size_t length);
int httpdns_x509_issuer(X509 *cert, char *buffer, size_t length);

// MARK: TLS session facts, for reports of what was actually negotiated
/// The server name (SNI) this client sent, or NULL when none was sent.
const char *httpdns_ssl_sni(const SSL *ssl);
/// The ALPN protocol selected, copied into `buffer`; returns its length (0 when none).
int httpdns_ssl_alpn(const SSL *ssl, char *buffer, size_t length);
/// The peer's leaf certificate (new reference the caller frees with X509_free), or NULL.
X509 *httpdns_ssl_peer_certificate(const SSL *ssl);
long httpdns_ssl_verify_result(const SSL *ssl);
/// The negotiated protocol version name ("TLSv1.3").
const char *httpdns_ssl_version(const SSL *ssl);

#endif
