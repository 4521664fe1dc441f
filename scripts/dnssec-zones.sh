# Signed zones for the DNSSEC tests, sourced by scripts/test-servers.sh. Made at every start with
# Debian's ldns tools (ldns-keygen, ldns-signzone) and served by unbound as auth-zones beside test.:
#
#   dnssec.test.           signed (NSEC); its KSK's DS is the tests' trust anchor (anchor.ds)
#   signed.dnssec.test.    signed child (NSEC3), DS in the parent              -> secure
#   unsigned.dnssec.test.  unsigned child, no DS: the parent's NSEC proves it  -> insecure
#   expired.dnssec.test.   signed child whose signatures expired in 2020       -> bogus
#   tampered.dnssec.test.  signed child with www's A changed after signing     -> bogus
#   notyet.dnssec.test.    signed child whose signatures start in 2034         -> bogus
#   dsmismatch.dnssec.test. signed child; the parent's DS is another key's     -> bogus
#   wrongkey.dnssec.test.  its records signed by a ZSK its DNSKEY set lacks    -> bogus
#   nonsec.dnssec.test.    signed child with its NSEC records removed          -> bogus denials
#   unsupported.dnssec.test. signed with RSASHA1 (algorithm 5), DS digest 2    -> insecure
#                          (RFC 6840 §5.2: an algorithm the validator lacks)
#
# unbound runs with module-config "iterator" (no validator), so it hands these out as they are.

# The child zones, in the order their DS records go into the parent.
DNSSEC_CHILDREN="signed unsigned expired tampered notyet dsmismatch wrongkey nonsec unsupported"
# The children whose DS goes into the parent (all but the unsigned one).
DNSSEC_SIGNED_CHILDREN="signed expired tampered notyet dsmismatch wrongkey nonsec unsupported"

# A zone's records: an address at the apex, an address pair at www, an in-zone alias, a wildcard.
dnssec_zone_text() {
    local origin=$1
    cat <<ZONE
\$ORIGIN $origin.
\$TTL 300
@     IN SOA ns.dnssec.test. hostmaster.$origin. 1 3600 600 86400 60
@     IN NS  ns.dnssec.test.
@     IN A    127.0.0.1
www   IN A    127.0.0.1
www   IN AAAA ::1
alias IN CNAME www.$origin.
*.wild IN A   127.0.0.1
ZONE
}

# Signs DIR/ORIGIN.zone into DIR/ORIGIN.signed with a new KSK and ZSK (ECDSA P-256, or
# $DNSSEC_ALGORITHM with its key size in $DNSSEC_KEY_BITS) and writes the KSK's SHA-256 DS to
# DIR/ORIGIN.ds; the KSK's file name is left in DNSSEC_KSK. Further arguments go to ldns-signzone.
dnssec_sign() {
    local dir=$1 origin=$2 zsk algorithm=${DNSSEC_ALGORITHM:-ECDSAP256SHA256} bits=()
    shift 2
    [ -n "${DNSSEC_KEY_BITS:-}" ] && bits=(-b "$DNSSEC_KEY_BITS")
    DNSSEC_KSK=$(cd "$dir" && ldns-keygen -a "$algorithm" "${bits[@]}" -k "$origin.") || die "ldns-keygen failed for $origin"
    zsk=$(cd "$dir" && ldns-keygen -a "$algorithm" "${bits[@]}" "$origin.") || die "ldns-keygen failed for $origin"
    (cd "$dir" && ldns-signzone "$@" -f "$origin.signed" "$origin.zone" "$DNSSEC_KSK" "$zsk") || die "ldns-signzone failed for $origin"
    # SHA-256 whatever the algorithm (ldns-keygen's own .ds is SHA-1 for RSASHA1).
    (cd "$dir" && ldns-key2ds -n -2 "$DNSSEC_KSK.key" >"$origin.ds") || die "ldns-key2ds failed for $origin"
}

# The lines of signed zone FILE whose type (or, for RRSIG, type covered) matches the awk regular
# expression TYPES, or with KEEP=0 the others.
dnssec_records() {
    local file=$1 types=$2 keep=$3
    awk -v types="^($types)\$" -v keep="$keep" -F'\t' '{
        type = $4; if (type == "RRSIG") { split($5, rdata, " "); type = rdata[1] }
        if ((type ~ types) == (keep == 1)) print
    }' "$file"
}

make_dnssec_zones() {
    local dir=$1 child
    command -v ldns-signzone >/dev/null || die "ldns-signzone not found: install ldnsutils (scripts/install-deps.sh)"
    rm -rf "$dir"
    mkdir -p "$dir"
    local window="-i 20250101000000 -e 20350101000000"
    for child in $DNSSEC_CHILDREN; do
        dnssec_zone_text "$child.dnssec.test" >"$dir/$child.dnssec.test.zone"
    done
    cp "$dir/unsigned.dnssec.test.zone" "$dir/unsigned.dnssec.test.signed"
    # shellcheck disable=SC2086 # $window is two options
    dnssec_sign "$dir" signed.dnssec.test $window -n -t 0
    dnssec_sign "$dir" expired.dnssec.test -i 20200101000000 -e 20200201000000
    # shellcheck disable=SC2086
    dnssec_sign "$dir" tampered.dnssec.test $window
    sed -i -E 's/^(www\.tampered\.dnssec\.test\.[[:space:]]+[0-9]+[[:space:]]+IN[[:space:]]+A[[:space:]]+)127\.0\.0\.1$/\1127.0.0.66/' \
        "$dir/tampered.dnssec.test.signed"
    grep -q "127.0.0.66" "$dir/tampered.dnssec.test.signed" || die "could not tamper with tampered.dnssec.test"
    dnssec_sign "$dir" notyet.dnssec.test -i 20340101000000 -e 20350101000000
    # shellcheck disable=SC2086
    dnssec_sign "$dir" dsmismatch.dnssec.test $window
    local stray
    stray=$(cd "$dir" && ldns-keygen -a ECDSAP256SHA256 -k dsmismatch.dnssec.test.) || die "ldns-keygen failed for the stray key"
    (cd "$dir" && ldns-key2ds -n -2 "$stray.key" >dsmismatch.dnssec.test.ds) || die "ldns-key2ds failed for the stray key"
    # wrongkey: the DNSKEY set (and its RRSIG) of one signing, the records signed by another ZSK.
    # shellcheck disable=SC2086
    dnssec_sign "$dir" wrongkey.dnssec.test $window
    local other
    other=$(cd "$dir" && ldns-keygen -a ECDSAP256SHA256 wrongkey.dnssec.test.) || die "ldns-keygen failed for wrongkey's other ZSK"
    # shellcheck disable=SC2086
    (cd "$dir" && ldns-signzone $window -f wrongkey.other wrongkey.dnssec.test.zone "$DNSSEC_KSK" "$other") || die "ldns-signzone failed for wrongkey"
    {
        dnssec_records "$dir/wrongkey.dnssec.test.signed" DNSKEY 1
        dnssec_records "$dir/wrongkey.other" DNSKEY 0
    } >"$dir/wrongkey.mixed"
    mv "$dir/wrongkey.mixed" "$dir/wrongkey.dnssec.test.signed"
    rm -f "$dir/wrongkey.other"
    # shellcheck disable=SC2086
    dnssec_sign "$dir" nonsec.dnssec.test $window
    dnssec_records "$dir/nonsec.dnssec.test.signed" NSEC 0 >"$dir/nonsec.stripped"
    mv "$dir/nonsec.stripped" "$dir/nonsec.dnssec.test.signed"
    grep -qP '\tNSEC\t' "$dir/nonsec.dnssec.test.signed" && die "could not strip nonsec.dnssec.test's NSEC records"
    # shellcheck disable=SC2086
    DNSSEC_ALGORITHM=RSASHA1 DNSSEC_KEY_BITS=1024 dnssec_sign "$dir" unsupported.dnssec.test $window

    {
        cat <<ZONE
\$ORIGIN dnssec.test.
\$TTL 300
@      IN SOA ns.dnssec.test. hostmaster.dnssec.test. 1 3600 600 86400 60
@      IN NS  ns.dnssec.test.
ns     IN A    127.0.0.1
www    IN A    127.0.0.1
www    IN AAAA ::1
alias  IN CNAME www.dnssec.test.
*.wild IN A    127.0.0.1
ZONE
        for child in $DNSSEC_CHILDREN; do
            echo "$child IN NS ns.dnssec.test."
        done
        for child in $DNSSEC_SIGNED_CHILDREN; do
            cat "$dir/$child.dnssec.test.ds"
        done
    } >"$dir/dnssec.test.zone"
    # shellcheck disable=SC2086
    dnssec_sign "$dir" dnssec.test $window
    cp "$dir/dnssec.test.ds" "$dir/anchor.ds"
}

# An auth-zone clause of unbound.conf: NAME (no trailing dot) answered from FILE, authoritatively,
# to clients only.
auth_zone_clause() {
    cat <<CONF
auth-zone:
    name: "$1."
    zonefile: "$2"
    for-downstream: yes
    for-upstream: no
    fallback-enabled: no
CONF
}

# The auth-zone clauses of unbound.conf for the zones in DIR.
dnssec_auth_zones() {
    local dir=$1 zone
    for zone in dnssec.test $(for child in $DNSSEC_CHILDREN; do echo "$child.dnssec.test"; done); do
        auth_zone_clause "$zone" "$dir/$zone.signed"
    done
}
