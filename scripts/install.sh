#!/usr/bin/env bash
# Builds the release httpdns (Swift runtime linked in) and installs it with its man pages and bash
# and zsh completion under PREFIX (default /usr/local):
#
#   scripts/install.sh [PREFIX]
#
# PREFIX/bin/httpdns, PREFIX/share/man/man1/httpdns*.1, PREFIX/share/bash-completion/completions/httpdns,
# PREFIX/share/zsh/site-functions/_httpdns. DESTDIR=/tmp/stage scripts/install.sh stages them instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
prefix="${1:-/usr/local}"
root="${DESTDIR:-}$prefix"

scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product httpdns
bin="$(swift build -c release --show-bin-path)/httpdns"

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" "$root/share/zsh/site-functions"
install -m 0755 "$bin" "$root/bin/httpdns"
"$bin" --generate-man "$root/share/man/man1"
"$bin" --generate-completion bash > "$root/share/bash-completion/completions/httpdns"
"$bin" --generate-completion zsh > "$root/share/zsh/site-functions/_httpdns"
echo "installed httpdns, its man pages (man httpdns, man httpdns-fetch, ...) and completion under $root"
