// Trust evaluation inside the TLS handshake: anchors, host name, pins and the client identity,
// installed per connection by CURLOPT_SSL_CTX_FUNCTION. Included by CHTTPDNSShims.h.
#ifndef HTTPDNS_TLS_H
#define HTTPDNS_TLS_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/evp.h>
#include <stddef.h>

/// What a pool's connections trust and present; one per trust policy, lives as long as its pool.
/// Every pointer is owned by this struct and freed by `httpdns_trust_free`.
struct httpdns_trust {
    /// Extra trust anchors. May be NULL.
    STACK_OF(X509) *anchors;
    /// Non-zero: trust only `anchors`, not the system roots curl loaded.
    int anchors_only;
    /// Non-zero: chains and names are not verified (pins, if any, still are).
    int insecure;
    /// The client identity, or NULL: leaf, key, and the intermediates sent with it.
    X509 *client_certificate;
    EVP_PKEY *client_key;
    STACK_OF(X509) *client_chain;
    /// The pool's certificate store: the system roots (unless `anchors_only`) and `anchors`, loaded
    /// once and shared by every connection of the pool (SSL_CTX_set1_cert_store). Parsing the
    /// system bundle costs tens of milliseconds; done per connection, it serialized every new
    /// connection on the transfer thread. The bundle is read on the first lookup that misses.
    X509_STORE *store;
    /// An IP address (4 or 16 octets) the leaf must also carry in its subjectAltName, as RFC 9462
    /// §4.2 asks of a designated resolver; length 0: none.
    unsigned char required_ip[16];
    size_t required_ip_length;
};
/// 1 when `certificate` (alone, no intermediates) chains to the store's roots; 0 otherwise. Dates
/// and the chain are checked, not a host name. Does not take ownership.
int httpdns_trust_verifies(const struct httpdns_trust *trust, X509 *certificate);
struct httpdns_trust *httpdns_trust_new(STACK_OF(X509) *anchors, int anchors_only);
void httpdns_trust_free(struct httpdns_trust *trust);
/// Takes ownership of `certificate`, `key` and `chain` (which may be NULL). Returns 1, or 0 when
/// the key does not belong to the certificate (ownership is then not taken).
int httpdns_trust_set_identity(struct httpdns_trust *trust, X509 *certificate, EVP_PKEY *key, STACK_OF(X509) *chain);

enum {
    HTTPDNS_PIN_NOT_EVALUATED = 0,   // no pins, or no handshake verification (session resumed)
    HTTPDNS_PIN_MATCHED = 1,
    HTTPDNS_PIN_MISMATCH = 2,        // enforced: the handshake was failed
    HTTPDNS_PIN_MISMATCH_REPORTED = 3, // report-only: the handshake went on
    HTTPDNS_PIN_ANCHORED = 4,        // chain unverifiable, but the leaf is pinned and the policy makes pins anchors
};

/// One transfer's view: its pool's trust, the pins that apply to its host, and what the handshake
/// found. Passed as CURLOPT_SSL_CTX_DATA; owned by the transfer (freed after its easy handle).
struct httpdns_tls_transfer {
    const struct httpdns_trust *trust;
    /// SHA-256 digests, 32 bytes each, back to back.
    unsigned char *spki_pins;
    int spki_pin_count;
    unsigned char *certificate_pins;
    int certificate_pin_count;
    int pins_enforced;
    int pins_are_anchors;
    /// Outputs, written during the handshake.
    int pin_outcome;
    int verification_skipped;
    /// The chain as the server sent it, leaf first (the peer's certificates, RFC 8446 §4.4.2). May be NULL.
    STACK_OF(X509) *served;
    /// The chain verification built, leaf first, anchor last (X509_STORE_CTX_get1_chain after
    /// X509_verify_cert succeeded). NULL when verification was off, failed, or did not run.
    STACK_OF(X509) *validated;
    /// Under `insecure`: what verification would have found (an X509_V_ERR_* code, X509_V_OK when
    /// the chain and the name would have passed), left as the handshake's verify result for
    /// CURLINFO_SSL_VERIFYRESULT, as libcurl does with CURLOPT_SSL_VERIFYPEER off. Nothing depends on it.
    int unenforced_verify_result;
};
/// Copies the pins. Returns NULL when out of memory.
struct httpdns_tls_transfer *httpdns_tls_transfer_new(const struct httpdns_trust *trust,
    const unsigned char *spki_pins, int spki_pin_count,
    const unsigned char *certificate_pins, int certificate_pin_count,
    int pins_enforced, int pins_are_anchors);
void httpdns_tls_transfer_free(struct httpdns_tls_transfer *transfer);
/// Installs `httpdns_tls_ctx_callback` with `transfer` as its data (CURLOPT_SSL_CTX_FUNCTION/DATA).
CURLcode httpdns_easy_set_tls_transfer(CURL *easy, struct httpdns_tls_transfer *transfer);
/// CURLOPT_SSL_CTX_FUNCTION: anchors, client identity, and the verification callback.
CURLcode httpdns_tls_ctx_callback(CURL *easy, void *ssl_ctx, void *userp);

// MARK: Certificate facts
/// SHA-256 of the DER SubjectPublicKeyInfo (RFC 7469 §2.4) into `out` (32 bytes). Returns 1 or 0.
int httpdns_x509_spki_sha256(X509 *cert, unsigned char *out);
/// SHA-256 of the DER SubjectPublicKeyInfo of the public key in `data` (a PEM "PUBLIC KEY" block or
/// DER SPKI, as CURLOPT_PINNEDPUBLICKEY files) into `out` (32 bytes). Returns 1 or 0.
int httpdns_public_key_sha256(const unsigned char *data, size_t length, unsigned char *out);
/// SHA-256 of the whole DER certificate into `out` (32 bytes). Returns 1 or 0.
int httpdns_x509_sha256(X509 *cert, unsigned char *out);
/// notBefore / notAfter as seconds since 1970. Returns 1 or 0.
int httpdns_x509_validity(X509 *cert, long long *not_before, long long *not_after);

// MARK: Client identities
enum {
    HTTPDNS_IDENTITY_OK = 0,
    HTTPDNS_IDENTITY_MALFORMED = 1,
    HTTPDNS_IDENTITY_WRONG_PASSWORD = 2,
    HTTPDNS_IDENTITY_NO_KEY = 3,
    HTTPDNS_IDENTITY_NO_CERTIFICATE = 4,
    HTTPDNS_IDENTITY_UNSUPPORTED = 5,
    HTTPDNS_IDENTITY_KEY_MISMATCH = 6,
};
/// Parses a PKCS#12 file (RFC 7292). Loads OpenSSL's legacy provider when the file uses algorithms
/// only it has (RC2, 3DES). On success `*certificate` and `*key` are set (caller frees) and the
/// other certificates are pushed onto `chain`. On failure a message is written to `error`.
int httpdns_pkcs12_parse(const unsigned char *data, size_t length, const char *password,
                         X509 **certificate, EVP_PKEY **key, STACK_OF(X509) *chain,
                         char *error, size_t error_length);
/// Parses a PEM private key (PKCS#8, traditional, or encrypted with `password`, which may be NULL).
/// Never prompts. Returns HTTPDNS_IDENTITY_* and sets `*key` on success.
int httpdns_pem_private_key(const char *pem, size_t length, const char *password, EVP_PKEY **key,
                            char *error, size_t error_length);
/// Non-zero when `key` is the private key of `certificate`.
int httpdns_key_matches(X509 *certificate, EVP_PKEY *key);
/// DER (i2d_PrivateKey) of `key`, into a buffer freed with `httpdns_free`. Returns length or -1.
int httpdns_private_key_to_der(EVP_PKEY *key, unsigned char **out);
/// Parses `i2d_PrivateKey` output.
EVP_PKEY *httpdns_private_key_from_der(const unsigned char *der, size_t length);
void httpdns_private_key_free(EVP_PKEY *key);

#endif
