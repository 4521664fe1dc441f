# Signed zones for the DNSSEC tests, sourced by scripts/test-servers.sh. Made at every start with
# Debian's ldns tools (ldns-keygen, ldns-signzone) and served by unbound as auth-zones beside test.:
#
#   dnssec.test.           signed (NSEC); its KSK's DS is the tests' trust anchor (anchor.ds)
#   signed.dnssec.test.    signed child (NSEC3), DS in the parent              -> secure
#   unsigned.dnssec.test.  unsigned child, no DS: the parent's NSEC proves it  -> insecure
#   expired.dnssec.test.   signed child whose signatures expired in 2020       -> bogus
#   tampered.dnssec.test.  signed child with www's A changed after signing     -> bogus
#
# unbound runs with module-config "iterator" (no validator), so it hands these out as they are.

# The child zones, in the order their DS records go into the parent.
DNSSEC_CHILDREN="signed unsigned expired tampered"

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

# Signs DIR/ORIGIN.zone into DIR/ORIGIN.signed with a new ECDSA P-256 KSK and ZSK and copies the
# KSK's DS to DIR/ORIGIN.ds. Further arguments go to ldns-signzone.
dnssec_sign() {
    local dir=$1 origin=$2 ksk zsk
    shift 2
    ksk=$(cd "$dir" && ldns-keygen -a ECDSAP256SHA256 -k "$origin.") || die "ldns-keygen failed for $origin"
    zsk=$(cd "$dir" && ldns-keygen -a ECDSAP256SHA256 "$origin.") || die "ldns-keygen failed for $origin"
    (cd "$dir" && ldns-signzone "$@" -f "$origin.signed" "$origin.zone" "$ksk" "$zsk") || die "ldns-signzone failed for $origin"
    cp "$dir/$ksk.ds" "$dir/$origin.ds"
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
        for child in signed expired tampered; do
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
