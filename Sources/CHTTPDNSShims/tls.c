#define _GNU_SOURCE  // memmem, timegm
#include "CHTTPDNSShims.h"
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <limits.h>

/* OpenSSL's first initialisation registers an atexit handler that frees its locks and tables
 * (OPENSSL_cleanup). A process that exits while a transfer is still in flight on another thread
 * (the CLI's -m running out during a DoH lookup, say) then crashed in that thread's next TLS call
 * (pthread_rwlock_unlock on freed memory). Initialising OpenSSL first, at load, without that handler
 * leaves its state alone at exit; the memory goes with the process. */
__attribute__((constructor)) static void httpdns_openssl_init_without_atexit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

// MARK: Pool trust

// The system CA bundle, read into a store on the first lookup that misses. Parsing its ~140
// certificates costs 25-40 ms, which every process paid on its first connection even when the
// anchors it was given (--cacert) verify the chain; certificates in the store are found without a
// lookup, so the bundle is now read only when a chain needs a certificate neither the store nor
// the CA directory (looked up by subject hash) has. The roots reachable are those of the bundle
// and the directory, as before: nothing is trusted that was not.
struct lazy_bundle {
    pthread_mutex_t lock;
    char *path;
    int loaded;
};

static int lazy_bundle_new(X509_LOOKUP *lookup) {
    struct lazy_bundle *bundle = calloc(1, sizeof(*bundle));
    if (bundle == NULL) return 0;
    pthread_mutex_init(&bundle->lock, NULL);
    return X509_LOOKUP_set_method_data(lookup, bundle);
}

static void lazy_bundle_free(X509_LOOKUP *lookup) {
    struct lazy_bundle *bundle = X509_LOOKUP_get_method_data(lookup);
    if (bundle == NULL) return;
    pthread_mutex_destroy(&bundle->lock);
    free(bundle->path);
    free(bundle);
}

static int lazy_bundle_ctrl(X509_LOOKUP *lookup, int command, const char *argument, long value, char **returned) {
    (void)value; (void)returned;
    struct lazy_bundle *bundle = X509_LOOKUP_get_method_data(lookup);
    if (command != X509_L_FILE_LOAD || bundle == NULL || argument == NULL) return 0;
    free(bundle->path);
    bundle->path = strdup(argument);
    return bundle->path != NULL;
}

static int lazy_bundle_get_by_subject(X509_LOOKUP *lookup, X509_LOOKUP_TYPE type, const X509_NAME *name, X509_OBJECT *result) {
    struct lazy_bundle *bundle = X509_LOOKUP_get_method_data(lookup);
    X509_STORE *store = X509_LOOKUP_get_store(lookup);
    if (bundle == NULL || store == NULL || type != X509_LU_X509) return 0;
    pthread_mutex_lock(&bundle->lock);
    int first = !bundle->loaded;
    if (first) {
        bundle->loaded = 1;
        if (bundle->path != NULL && X509_load_cert_crl_file(lookup, bundle->path, X509_FILETYPE_PEM) <= 0) ERR_clear_error();
    }
    pthread_mutex_unlock(&bundle->lock);
    // After the first load the bundle is in the store, so a later miss is a real one.
    if (!first || !X509_STORE_lock(store)) return 0;
    X509_OBJECT *found = X509_OBJECT_retrieve_by_subject(X509_STORE_get0_objects(store), X509_LU_X509, (X509_NAME *)name);
    X509 *certificate = found != NULL ? X509_OBJECT_get0_X509(found) : NULL;
    int ok = certificate != NULL && X509_OBJECT_set1_X509(result, certificate) == 1;
    X509_STORE_unlock(store);
    // As OpenSSL's own lookups do, the result does not own a reference: the caller takes one, and the
    // store keeps the certificate alive.
    if (ok) X509_free(certificate);
    return ok;
}

static X509_LOOKUP_METHOD *lazy_bundle_method;
static pthread_once_t lazy_bundle_once = PTHREAD_ONCE_INIT;

static void lazy_bundle_make_method(void) {
    X509_LOOKUP_METHOD *method = X509_LOOKUP_meth_new("httpdns lazy CA bundle");
    if (method == NULL) return;
    X509_LOOKUP_meth_set_new_item(method, lazy_bundle_new);
    X509_LOOKUP_meth_set_free(method, lazy_bundle_free);
    X509_LOOKUP_meth_set_ctrl(method, lazy_bundle_ctrl);
    X509_LOOKUP_meth_set_get_by_subject(method, lazy_bundle_get_by_subject);
    lazy_bundle_method = method;
}

/// Adds the bundle at `file` to `store`, read on the first miss; falls back to reading it now.
static void add_bundle(X509_STORE *store, const char *file) {
    pthread_once(&lazy_bundle_once, lazy_bundle_make_method);
    X509_LOOKUP *lookup = lazy_bundle_method != NULL ? X509_STORE_add_lookup(store, lazy_bundle_method) : NULL;
    if (lookup != NULL && X509_LOOKUP_ctrl(lookup, X509_L_FILE_LOAD, file, 0, NULL) == 1) return;
    ERR_clear_error();
    if (X509_STORE_load_file(store, file) != 1) ERR_clear_error();
}

struct httpdns_trust *httpdns_trust_new(STACK_OF(X509) *anchors, int anchors_only) {
    struct httpdns_trust *trust = calloc(1, sizeof(*trust));
    if (trust == NULL) return NULL;
    trust->anchors = anchors;
    trust->anchors_only = anchors_only;
    trust->store = X509_STORE_new();
    if (trust->store == NULL) { free(trust); return NULL; }
    if (!anchors_only) {
        // The roots libcurl itself would load: its built-in CURLOPT_CAINFO / CURLOPT_CAPATH.
        curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
        const char *file = (info != NULL && info->age >= CURLVERSION_NINTH) ? info->cainfo : NULL;
        const char *dir = (info != NULL && info->age >= CURLVERSION_NINTH) ? info->capath : NULL;
        // The directory first: it is looked up by subject hash, a file or two per miss, so a root
        // found there never costs the bundle's parse; the bundle is read only for a certificate
        // the directory lacks.
        if (dir != NULL && X509_STORE_load_path(trust->store, dir) != 1) ERR_clear_error();
        if (file != NULL) add_bundle(trust->store, file);
        if (file == NULL && dir == NULL && X509_STORE_set_default_paths(trust->store) != 1) ERR_clear_error();
    }
    int count = anchors ? sk_X509_num(anchors) : 0;
    for (int i = 0; i < count; i++) {
        if (X509_STORE_add_cert(trust->store, sk_X509_value(anchors, i)) != 1) ERR_clear_error();
    }
    // As libcurl sets on the stores it builds: an anchor need not be self-signed.
    X509_STORE_set_flags(trust->store, X509_V_FLAG_PARTIAL_CHAIN);
    return trust;
}

int httpdns_trust_verifies(const struct httpdns_trust *trust, X509 *certificate) {
    if (trust == NULL || trust->store == NULL || certificate == NULL) return 0;
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    if (context == NULL) return 0;
    int ok = X509_STORE_CTX_init(context, trust->store, certificate, NULL) == 1 && X509_verify_cert(context) == 1;
    X509_STORE_CTX_free(context);
    ERR_clear_error();
    return ok;
}

void httpdns_trust_free(struct httpdns_trust *trust) {
    if (trust == NULL) return;
    if (trust->anchors != NULL) sk_X509_pop_free(trust->anchors, X509_free);
    if (trust->store != NULL) X509_STORE_free(trust->store);
    if (trust->client_certificate != NULL) X509_free(trust->client_certificate);
    if (trust->client_key != NULL) EVP_PKEY_free(trust->client_key);
    if (trust->client_chain != NULL) sk_X509_pop_free(trust->client_chain, X509_free);
    free(trust);
}

int httpdns_trust_set_identity(struct httpdns_trust *trust, X509 *certificate, EVP_PKEY *key, STACK_OF(X509) *chain) {
    if (X509_check_private_key(certificate, key) != 1) { ERR_clear_error(); return 0; }
    trust->client_certificate = certificate;
    trust->client_key = key;
    trust->client_chain = chain;
    return 1;
}

// MARK: Per-transfer state

static unsigned char *copy_bytes(const unsigned char *bytes, int count) {
    if (count <= 0 || bytes == NULL) return NULL;
    unsigned char *copy = malloc((size_t)count * 32);
    if (copy != NULL) memcpy(copy, bytes, (size_t)count * 32);
    return copy;
}

struct httpdns_tls_transfer *httpdns_tls_transfer_new(const struct httpdns_trust *trust,
    const unsigned char *spki_pins, int spki_pin_count,
    const unsigned char *certificate_pins, int certificate_pin_count,
    int pins_enforced, int pins_are_anchors) {
    struct httpdns_tls_transfer *transfer = calloc(1, sizeof(*transfer));
    if (transfer == NULL) return NULL;
    transfer->trust = trust;
    transfer->spki_pins = copy_bytes(spki_pins, spki_pin_count);
    transfer->spki_pin_count = transfer->spki_pins ? spki_pin_count : 0;
    transfer->certificate_pins = copy_bytes(certificate_pins, certificate_pin_count);
    transfer->certificate_pin_count = transfer->certificate_pins ? certificate_pin_count : 0;
    transfer->pins_enforced = pins_enforced;
    transfer->pins_are_anchors = pins_are_anchors;
    return transfer;
}

void httpdns_tls_transfer_free(struct httpdns_tls_transfer *transfer) {
    if (transfer == NULL) return;
    free(transfer->spki_pins);
    free(transfer->certificate_pins);
    if (transfer->served != NULL) sk_X509_pop_free(transfer->served, X509_free);
    if (transfer->validated != NULL) sk_X509_pop_free(transfer->validated, X509_free);
    free(transfer);
}

CURLcode httpdns_easy_set_tls_transfer(CURL *easy, struct httpdns_tls_transfer *transfer) {
    CURLcode rc = curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, httpdns_tls_ctx_callback);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, transfer);
}

// MARK: Certificate facts

int httpdns_x509_spki_sha256(X509 *cert, unsigned char *out) {
    unsigned char *der = NULL;
    int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
    if (length <= 0) { ERR_clear_error(); return 0; }
    int ok = EVP_Digest(der, (size_t)length, out, NULL, EVP_sha256(), NULL);
    OPENSSL_free(der);
    return ok == 1;
}

int httpdns_public_key_sha256(const unsigned char *data, size_t length, unsigned char *out) {
    if (length > INT_MAX) return 0;
    EVP_PKEY *key = NULL;
    BIO *bio = BIO_new_mem_buf(data, (int)length);
    if (bio != NULL) {
        key = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
        BIO_free(bio);
    }
    if (key == NULL) {
        const unsigned char *cursor = data;
        key = d2i_PUBKEY(NULL, &cursor, (long)length);
        // DER must be the whole file: trailing bytes mean it is something else.
        if (key != NULL && cursor != data + length) { EVP_PKEY_free(key); key = NULL; }
    }
    ERR_clear_error();
    if (key == NULL) return 0;
    unsigned char *der = NULL;
    int der_length = i2d_PUBKEY(key, &der);
    EVP_PKEY_free(key);
    if (der_length <= 0) { ERR_clear_error(); return 0; }
    int ok = EVP_Digest(der, (size_t)der_length, out, NULL, EVP_sha256(), NULL);
    OPENSSL_free(der);
    return ok == 1;
}

int httpdns_x509_sha256(X509 *cert, unsigned char *out) {
    unsigned int length = 0;
    return X509_digest(cert, EVP_sha256(), out, &length) == 1 && length == 32;
}

int httpdns_x509_validity(X509 *cert, long long *not_before, long long *not_after) {
    struct tm tm;
    const ASN1_TIME *times[2] = { X509_get0_notBefore(cert), X509_get0_notAfter(cert) };
    long long *outputs[2] = { not_before, not_after };
    for (int i = 0; i < 2; i++) {
        memset(&tm, 0, sizeof(tm));
        if (times[i] == NULL || ASN1_TIME_to_tm(times[i], &tm) != 1) return 0;
        *outputs[i] = (long long)timegm(&tm);
    }
    return 1;
}

static int matches_pin(const unsigned char *pins, int count, const unsigned char *digest) {
    for (int i = 0; i < count; i++) {
        if (memcmp(pins + 32 * i, digest, 32) == 0) return 1;
    }
    return 0;
}

/// Whether `cert` carries one of the transfer's pins (SPKI or whole certificate).
static int certificate_is_pinned(const struct httpdns_tls_transfer *transfer, X509 *cert) {
    unsigned char digest[32];
    if (transfer->spki_pin_count > 0 && httpdns_x509_spki_sha256(cert, digest) &&
        matches_pin(transfer->spki_pins, transfer->spki_pin_count, digest)) return 1;
    if (transfer->certificate_pin_count > 0 && httpdns_x509_sha256(cert, digest) &&
        matches_pin(transfer->certificate_pins, transfer->certificate_pin_count, digest)) return 1;
    return 0;
}

/// Replaces `*slot` (freeing what it held) with `chain`, which may be NULL.
static void record_chain(STACK_OF(X509) **slot, STACK_OF(X509) *chain) {
    if (*slot != NULL) sk_X509_pop_free(*slot, X509_free);
    *slot = chain;
}

/// Whether any certificate of `chain` carries one of the transfer's pins.
static int chain_is_pinned(const struct httpdns_tls_transfer *transfer, STACK_OF(X509) *chain) {
    int count = chain ? sk_X509_num(chain) : 0;
    for (int i = 0; i < count; i++) {
        if (certificate_is_pinned(transfer, sk_X509_value(chain, i))) return 1;
    }
    return 0;
}

static STACK_OF(X509) *copy_chain(X509 *leaf, STACK_OF(X509) *rest) {
    STACK_OF(X509) *copy = sk_X509_new_null();
    if (copy == NULL) return NULL;
    if (leaf != NULL && X509_up_ref(leaf) == 1) sk_X509_push(copy, leaf);
    int count = rest ? sk_X509_num(rest) : 0;
    for (int i = 0; i < count; i++) {
        X509 *cert = sk_X509_value(rest, i);
        if (cert == leaf || (leaf != NULL && X509_cmp(cert, leaf) == 0)) continue;
        if (X509_up_ref(cert) == 1) sk_X509_push(copy, cert);
    }
    return copy;
}

/// SSL_CTX_set_cert_verify_callback: replaces X509_verify_cert for this connection.
///
/// Order: chain to an anchor and the host name (the SNI name, which is the URL's host even when the
/// connection goes to an IP), then pins against every certificate of the verified chain. libcurl
/// checks the name again after the handshake.
static int verify_callback(X509_STORE_CTX *ctx, void *arg) {
    struct httpdns_tls_transfer *transfer = arg;
    const struct httpdns_trust *trust = transfer->trust;
    SSL *ssl = X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx());
    const char *name = ssl ? SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) : NULL;
    X509 *leaf = X509_STORE_CTX_get0_cert(ctx);
    int pinned = transfer->spki_pin_count + transfer->certificate_pin_count > 0;

    record_chain(&transfer->served, copy_chain(leaf, X509_STORE_CTX_get0_untrusted(ctx)));
    record_chain(&transfer->validated, NULL);
    if (name != NULL) {
        X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(param, name, 0);
    }

    if (trust != NULL && trust->insecure) {
        transfer->verification_skipped = 1;
        // Only for the report (%{ssl_verify_result}, as curl -k gives it): the verdict decides
        // nothing, and the chain it built is not kept as a validated one.
        transfer->unenforced_verify_result = X509_verify_cert(ctx) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
        ERR_clear_error();
        if (pinned) {
            int found = chain_is_pinned(transfer, transfer->served);
            transfer->pin_outcome = found ? HTTPDNS_PIN_MATCHED : (transfer->pins_enforced ? HTTPDNS_PIN_MISMATCH : HTTPDNS_PIN_MISMATCH_REPORTED);
            if (!found && transfer->pins_enforced) {
                X509_STORE_CTX_set_error(ctx, X509_V_ERR_APPLICATION_VERIFICATION);
                return 0;
            }
        }
        // Accepted whatever the verdict; libcurl (CURLOPT_SSL_VERIFYPEER off) only records it.
        X509_STORE_CTX_set_error(ctx, transfer->unenforced_verify_result);
        return 1;
    }

    int ok = X509_verify_cert(ctx);
    if (ok == 1 && trust != NULL && trust->required_ip_length > 0 &&
        (leaf == NULL || X509_check_ip(leaf, trust->required_ip, trust->required_ip_length, 0) != 1)) {
        X509_STORE_CTX_set_error(ctx, X509_V_ERR_IP_ADDRESS_MISMATCH);
        return 0;
    }
    if (ok != 1) {
        int error = X509_STORE_CTX_get_error(ctx);
        // A pinned leaf may stand in for an anchor (self-signed servers), never for the name.
        if (pinned && transfer->pins_are_anchors && leaf != NULL && error != X509_V_ERR_HOSTNAME_MISMATCH &&
            certificate_is_pinned(transfer, leaf) &&
            (name == NULL || X509_check_host(leaf, name, 0, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1) &&
            (trust == NULL || trust->required_ip_length == 0 ||
             X509_check_ip(leaf, trust->required_ip, trust->required_ip_length, 0) == 1) &&
            X509_cmp_current_time(X509_get0_notBefore(leaf)) < 0 &&
            X509_cmp_current_time(X509_get0_notAfter(leaf)) > 0) {
            transfer->pin_outcome = HTTPDNS_PIN_ANCHORED;
            X509_STORE_CTX_set_error(ctx, X509_V_OK);
            ERR_clear_error();
            return 1;
        }
        return 0;
    }
    record_chain(&transfer->validated, X509_STORE_CTX_get1_chain(ctx));
    if (!pinned) return 1;
    if (chain_is_pinned(transfer, transfer->validated)) {
        transfer->pin_outcome = HTTPDNS_PIN_MATCHED;
        return 1;
    }
    if (!transfer->pins_enforced) {
        transfer->pin_outcome = HTTPDNS_PIN_MISMATCH_REPORTED;
        return 1;
    }
    transfer->pin_outcome = HTTPDNS_PIN_MISMATCH;
    X509_STORE_CTX_set_error(ctx, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

CURLcode httpdns_tls_ctx_callback(CURL *easy, void *ssl_ctx, void *userp) {
    (void)easy;
    struct httpdns_tls_transfer *transfer = userp;
    SSL_CTX *ctx = ssl_ctx;
    if (transfer == NULL) return CURLE_OK;
    const struct httpdns_trust *trust = transfer->trust;
    // The verification callback's argument is this transfer's state; a renegotiation on a pooled
    // connection would run it after the transfer is gone. TLS 1.3 has none; refuse it for 1.2.
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    if (trust != NULL) {
        // The pool's store replaces whatever libcurl set up (it is told to load nothing).
        SSL_CTX_set1_cert_store(ctx, trust->store);
        if (trust->client_certificate != NULL && trust->client_key != NULL) {
            if (SSL_CTX_use_certificate(ctx, trust->client_certificate) != 1 ||
                SSL_CTX_use_PrivateKey(ctx, trust->client_key) != 1) {
                ERR_clear_error();
                return CURLE_SSL_CERTPROBLEM;
            }
            int chain = trust->client_chain ? sk_X509_num(trust->client_chain) : 0;
            for (int i = 0; i < chain; i++) {
                if (SSL_CTX_add1_chain_cert(ctx, sk_X509_value(trust->client_chain, i)) != 1) {
                    ERR_clear_error();
                    return CURLE_SSL_CERTPROBLEM;
                }
            }
        }
        // Without verification libcurl asks for SSL_VERIFY_NONE, under which OpenSSL ignores the
        // callback's verdict; pins must still be able to fail the handshake.
        if (trust->insecure && transfer->spki_pin_count + transfer->certificate_pin_count > 0 && transfer->pins_enforced) {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        }
    }
    SSL_CTX_set_cert_verify_callback(ctx, verify_callback, transfer);
    return CURLE_OK;
}

// MARK: Client identities

static void write_error(char *error, size_t error_length, const char *message) {
    if (error == NULL || error_length == 0) return;
    unsigned long code = ERR_peek_last_error();
    if (message != NULL) {
        if (code != 0) {
            char reason[200];
            ERR_error_string_n(code, reason, sizeof(reason));
            snprintf(error, error_length, "%s (%s)", message, reason);
        } else {
            snprintf(error, error_length, "%s", message);
        }
    } else if (code != 0) {
        ERR_error_string_n(code, error, error_length);
    } else {
        error[0] = 0;
    }
    ERR_clear_error();
}

static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;
static int legacy_loaded = 0;
static void load_legacy(void) {
    // Loading any provider explicitly stops OpenSSL from loading the default one on its own.
    OSSL_PROVIDER *defaults = OSSL_PROVIDER_load(NULL, "default");
    OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy");
    legacy_loaded = defaults != NULL && legacy != NULL;
    ERR_clear_error();
}

int httpdns_pkcs12_parse(const unsigned char *data, size_t length, const char *password,
                         X509 **certificate, EVP_PKEY **key, STACK_OF(X509) *chain,
                         char *error, size_t error_length) {
    *certificate = NULL;
    *key = NULL;
    if (length > LONG_MAX) { write_error(error, error_length, "file too large"); return HTTPDNS_IDENTITY_MALFORMED; }
    ERR_clear_error();
    const unsigned char *cursor = data;
    PKCS12 *p12 = d2i_PKCS12(NULL, &cursor, (long)length);
    if (p12 == NULL) { write_error(error, error_length, "not a PKCS#12 file"); return HTTPDNS_IDENTITY_MALFORMED; }
    const char *pass = password ? password : "";
    if (PKCS12_mac_present(p12)) {
        // An empty password may be encoded either as "" or as no password at all.
        if (PKCS12_verify_mac(p12, pass, -1) != 1 && !(pass[0] == 0 && PKCS12_verify_mac(p12, NULL, 0) == 1)) {
            PKCS12_free(p12);
            write_error(error, error_length, password && password[0] ? "wrong password" : "a password is required");
            return HTTPDNS_IDENTITY_WRONG_PASSWORD;
        }
    }
    STACK_OF(X509) *extra = NULL;
    int ok = PKCS12_parse(p12, pass, key, certificate, &extra);
    if (ok != 1) {
        // The 3DES/RC2 formats of older tools need the legacy provider (RC2 is only there).
        pthread_once(&legacy_once, load_legacy);
        ERR_clear_error();
        if (legacy_loaded) ok = PKCS12_parse(p12, pass, key, certificate, &extra);
        if (ok != 1) {
            PKCS12_free(p12);
            write_error(error, error_length, legacy_loaded ? "cannot decrypt the PKCS#12 contents" : "the file needs OpenSSL's legacy provider, which could not be loaded");
            return legacy_loaded ? HTTPDNS_IDENTITY_MALFORMED : HTTPDNS_IDENTITY_UNSUPPORTED;
        }
    }
    PKCS12_free(p12);
    int count = extra ? sk_X509_num(extra) : 0;
    for (int i = 0; i < count; i++) {
        X509 *cert = sk_X509_value(extra, i);
        if (X509_up_ref(cert) == 1 && sk_X509_push(chain, cert) <= 0) X509_free(cert);
    }
    if (extra) sk_X509_pop_free(extra, X509_free);
    if (*certificate == NULL && *key == NULL && count > 0) {
        // PKCS12_parse pairs the certificate with its key; without a key every certificate
        // lands among the extras.
        write_error(error, error_length, "the file holds no private key");
        return HTTPDNS_IDENTITY_NO_KEY;
    }
    if (*certificate == NULL) {
        if (*key) { EVP_PKEY_free(*key); *key = NULL; }
        write_error(error, error_length, "the file holds no certificate with a private key");
        return HTTPDNS_IDENTITY_NO_CERTIFICATE;
    }
    if (*key == NULL) {
        X509_free(*certificate);
        *certificate = NULL;
        write_error(error, error_length, "the file holds no private key");
        return HTTPDNS_IDENTITY_NO_KEY;
    }
    ERR_clear_error();
    return HTTPDNS_IDENTITY_OK;
}

static int password_callback(char *buffer, int size, int rwflag, void *userdata) {
    (void)rwflag;
    const char *password = userdata;
    if (password == NULL) return -1;  // never prompt on a terminal
    size_t length = strlen(password);
    if (length > (size_t)size) length = (size_t)size;
    memcpy(buffer, password, length);
    return (int)length;
}

int httpdns_pem_private_key(const char *pem, size_t length, const char *password, EVP_PKEY **key,
                            char *error, size_t error_length) {
    *key = NULL;
    if (length > INT_MAX) { write_error(error, error_length, "file too large"); return HTTPDNS_IDENTITY_MALFORMED; }
    ERR_clear_error();
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) { write_error(error, error_length, "out of memory"); return HTTPDNS_IDENTITY_MALFORMED; }
    *key = PEM_read_bio_PrivateKey(bio, NULL, password_callback, (void *)password);
    BIO_free(bio);
    if (*key != NULL) { ERR_clear_error(); return HTTPDNS_IDENTITY_OK; }
    int encrypted = memmem(pem, length, "ENCRYPTED", 9) != NULL;
    int has_key = memmem(pem, length, "PRIVATE KEY-----", 16) != NULL;
    if (encrypted) {
        write_error(error, error_length, password ? "wrong passphrase for the encrypted private key" : "the private key is encrypted and no passphrase was given");
        return HTTPDNS_IDENTITY_WRONG_PASSWORD;
    }
    if (!has_key) { write_error(error, error_length, "no private key found"); return HTTPDNS_IDENTITY_NO_KEY; }
    write_error(error, error_length, "malformed private key");
    return HTTPDNS_IDENTITY_MALFORMED;
}

int httpdns_key_matches(X509 *certificate, EVP_PKEY *key) {
    int ok = X509_check_private_key(certificate, key) == 1;
    ERR_clear_error();
    return ok;
}

int httpdns_private_key_to_der(EVP_PKEY *key, unsigned char **out) { *out = NULL; return i2d_PrivateKey(key, out); }

EVP_PKEY *httpdns_private_key_from_der(const unsigned char *der, size_t length) {
    const unsigned char *cursor = der;
    if (length > LONG_MAX) return NULL;
    EVP_PKEY *key = d2i_AutoPrivateKey(NULL, &cursor, (long)length);
    ERR_clear_error();
    return key;
}

void httpdns_private_key_free(EVP_PKEY *key) { EVP_PKEY_free(key); }
