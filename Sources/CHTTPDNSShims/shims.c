#define _GNU_SOURCE  // ppoll
#include "CHTTPDNSShims.h"
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <time.h>
#include <errno.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/socket.h>

CURLcode httpdns_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode httpdns_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode httpdns_easy_setopt_ptr(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode httpdns_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(easy, option, callback);
}
CURLcode httpdns_easy_setopt_read_function(CURL *easy, curl_read_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_READFUNCTION, callback);
}
CURLcode httpdns_easy_setopt_xferinfo_function(CURL *easy, curl_xferinfo_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback);
}
CURLcode httpdns_easy_setopt_seek_function(CURL *easy, curl_seek_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_SEEKFUNCTION, callback);
}
CURLcode httpdns_easy_setopt_prereq_function(CURL *easy, curl_prereq_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_PREREQFUNCTION, callback);
}
CURLcode httpdns_easy_setopt_sockopt_function(CURL *easy, curl_sockopt_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, callback);
}
CURLcode httpdns_easy_setopt_debug_function(CURL *easy, curl_debug_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_DEBUGFUNCTION, callback);
}
static httpdns_socket_lifecycle_callback socket_lifecycle_callback;
void httpdns_set_socket_lifecycle_callback(httpdns_socket_lifecycle_callback callback) {
    socket_lifecycle_callback = callback;
}
static curl_socket_t httpdns_open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) return CURL_SOCKET_BAD;
    if (socket_lifecycle_callback) {
        int saved = errno;
        socket_lifecycle_callback(fd, 1);
        errno = saved;
    }
    return fd;
}
static int httpdns_close_socket(void *clientp, curl_socket_t fd) {
    (void)clientp;
    if (socket_lifecycle_callback) socket_lifecycle_callback(fd, 0);
    return close(fd);
}
CURLcode httpdns_easy_set_socket_lifecycle(CURL *easy) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, httpdns_open_socket);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, httpdns_close_socket);
    return code;
}
CURLcode httpdns_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode httpdns_easy_getinfo_off(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode httpdns_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode httpdns_easy_getinfo_ptr(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}
SSL *httpdns_easy_tls_session(CURL *easy) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return NULL;
    if (info->backend != CURLSSLBACKEND_OPENSSL) return NULL;
    return (SSL *)info->internals;
}

CURLMcode httpdns_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
CURLMcode httpdns_multi_set_callbacks(CURLM *multi, httpdns_socket_callback socket_cb,
                                      httpdns_timer_callback timer_cb, void *userp) {
    CURLMcode rc;
    if ((rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_cb)) != CURLM_OK) return rc;
    if ((rc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, userp)) != CURLM_OK) return rc;
    if ((rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_cb)) != CURLM_OK) return rc;
    return curl_multi_setopt(multi, CURLMOPT_TIMERDATA, userp);
}
CURLSHcode httpdns_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

STACK_OF(X509) *httpdns_x509_stack_new(void) { return sk_X509_new_null(); }
int httpdns_x509_stack_count(const STACK_OF(X509) *stack) { return stack ? sk_X509_num(stack) : 0; }
X509 *httpdns_x509_stack_get(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
int httpdns_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert) > 0 ? 1 : 0; }
void httpdns_x509_stack_free(STACK_OF(X509) *stack) { if (stack) sk_X509_pop_free(stack, X509_free); }

static void copy_openssl_error(char *error, size_t error_length, const char *fallback) {
    if (error == NULL || error_length == 0) return;
    unsigned long code = ERR_peek_last_error();
    if (code != 0) {
        ERR_error_string_n(code, error, error_length);
    } else {
        snprintf(error, error_length, "%s", fallback);
    }
    ERR_clear_error();
}

int httpdns_pem_read_certificates(const char *pem, size_t length, STACK_OF(X509) *stack,
                                  char *error, size_t error_length) {
    if (length > INT32_MAX) { copy_openssl_error(error, error_length, "PEM input too large"); return -1; }
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) { copy_openssl_error(error, error_length, "out of memory"); return -1; }
    int added = 0;
    ERR_clear_error();
    for (;;) {
        X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        if (cert == NULL) {
            unsigned long code = ERR_peek_last_error();
            // Running out of input after the last block is the normal end.
            if (ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE) {
                ERR_clear_error();
                break;
            }
            copy_openssl_error(error, error_length, "malformed PEM certificate");
            BIO_free(bio);
            return -1;
        }
        if (!httpdns_x509_stack_push(stack, cert)) {
            X509_free(cert);
            copy_openssl_error(error, error_length, "out of memory");
            BIO_free(bio);
            return -1;
        }
        added++;
    }
    BIO_free(bio);
    return added;
}

X509 *httpdns_der_read_certificate(const unsigned char *der, size_t length) {
    const unsigned char *cursor = der;
    if (length > LONG_MAX) return NULL;
    X509 *cert = d2i_X509(NULL, &cursor, (long)length);
    if (cert != NULL && cursor != der + length) { X509_free(cert); return NULL; }
    ERR_clear_error();
    return cert;
}
int httpdns_x509_to_der(X509 *cert, unsigned char **out) { *out = NULL; return i2d_X509(cert, out); }
void httpdns_free(void *pointer) { OPENSSL_free(pointer); }

static int name_to_string(const X509_NAME *name, char *buffer, size_t length) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return -1;
    if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) < 0) { BIO_free(bio); return -1; }
    int n = BIO_read(bio, buffer, (int)(length > 0 ? length - 1 : 0));
    BIO_free(bio);
    if (n < 0) n = 0;
    buffer[n] = 0;
    return n;
}
int httpdns_x509_subject(X509 *cert, char *buffer, size_t length) { return name_to_string(X509_get_subject_name(cert), buffer, length); }
int httpdns_x509_issuer(X509 *cert, char *buffer, size_t length) { return name_to_string(X509_get_issuer_name(cert), buffer, length); }

const char *httpdns_ssl_sni(const SSL *ssl) { return SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name); }
int httpdns_ssl_alpn(const SSL *ssl, char *buffer, size_t length) {
    const unsigned char *data = NULL;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl, &data, &len);
    if (data == NULL || len == 0 || length == 0) { if (length) buffer[0] = 0; return 0; }
    if (len >= length) len = (unsigned int)length - 1;
    memcpy(buffer, data, len);
    buffer[len] = 0;
    return (int)len;
}
X509 *httpdns_ssl_peer_certificate(const SSL *ssl) { return SSL_get1_peer_certificate(ssl); }
long httpdns_ssl_verify_result(const SSL *ssl) { return SSL_get_verify_result(ssl); }
const char *httpdns_ssl_version(const SSL *ssl) { return SSL_get_version(ssl); }

int httpdns_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
int httpdns_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
extern char **environ;
char **httpdns_environment(void) { return environ; }
int httpdns_epoll_ctl(int epoll_fd, int operation, int fd, int events) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    if (events & HTTPDNS_EVENT_IN) event.events |= EPOLLIN;
    if (events & HTTPDNS_EVENT_OUT) event.events |= EPOLLOUT;
    event.data.fd = fd;
    int op = operation == HTTPDNS_WATCH_ADD ? EPOLL_CTL_ADD
           : operation == HTTPDNS_WATCH_MODIFY ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(epoll_fd, op, fd, &event);
}
int httpdns_epoll_wait(int epoll_fd, struct httpdns_event *events, int capacity, int timeout_ms) {
    struct epoll_event raw[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll_fd, raw, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        int flags = 0;
        if (raw[i].events & EPOLLIN) flags |= HTTPDNS_EVENT_IN;
        if (raw[i].events & EPOLLOUT) flags |= HTTPDNS_EVENT_OUT;
        if (raw[i].events & (EPOLLERR | EPOLLHUP)) flags |= HTTPDNS_EVENT_ERROR;
        events[i].fd = raw[i].data.fd;
        events[i].events = flags;
    }
    return count;
}

int httpdns_poll_wait(struct httpdns_event *events, int count, long long timeout_ns) {
    struct pollfd raw[16];
    if (count > 16) count = 16;
    for (int i = 0; i < count; i++) {
        raw[i].fd = events[i].fd;
        raw[i].events = (short)(((events[i].events & HTTPDNS_EVENT_IN) ? POLLIN : 0) | ((events[i].events & HTTPDNS_EVENT_OUT) ? POLLOUT : 0));
        raw[i].revents = 0;
    }
    if (timeout_ns < 0) timeout_ns = 0;
    struct timespec limit = { (time_t)(timeout_ns / 1000000000LL), (long)(timeout_ns % 1000000000LL) };
    int ready = ppoll(raw, (nfds_t)count, &limit, NULL);
    for (int i = 0; i < count; i++) {
        int flags = 0;
        if (ready > 0) {
            if (raw[i].revents & POLLIN) flags |= HTTPDNS_EVENT_IN;
            if (raw[i].revents & POLLOUT) flags |= HTTPDNS_EVENT_OUT;
            if (raw[i].revents & (POLLERR | POLLHUP | POLLNVAL)) flags |= HTTPDNS_EVENT_ERROR;
        }
        events[i].events = flags;
    }
    return ready;
}

int httpdns_timerfd(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }
int httpdns_timerfd_arm(int fd, long long nanoseconds) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof(spec));
    if (nanoseconds >= 0) {
        // A zero it_value disarms the timer; a due deadline fires after 1 ns instead.
        if (nanoseconds == 0) nanoseconds = 1;
        spec.it_value.tv_sec = (time_t)(nanoseconds / 1000000000LL);
        spec.it_value.tv_nsec = (long)(nanoseconds % 1000000000LL);
    }
    return timerfd_settime(fd, 0, &spec, NULL);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
CURLMcode httpdns_multi_socket_all(CURLM *multi, int *running) {
    return curl_multi_socket_all(multi, running);
}
#pragma GCC diagnostic pop
