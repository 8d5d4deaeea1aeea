#!/usr/bin/env bash
# Installs what Courier needs on a fresh Debian machine. Safe to run again, and quick when
# everything is there. Starts nothing: the interop tests start their own servers.
#
#   scripts/setup.sh           what building Courier and running the demo need: libcurl's and
#                              zlib's development files, duktape-dev (PAC files), libssl-dev
#                              (libcrypto's headers: SHA-256 and HMAC for S3 signing), libxml2-dev
#                              (the HTML parser for web pages), pkg-config and media-types
#                              (/etc/mime.types). A program using Courier needs the first five.
#   scripts/setup.sh --tests   that, and what the tests need besides: nginx with its stream
#                              module (a TLS front for an HTTPS proxy), openssl, curl, tinyproxy
#                              and dante-server (SOCKS), groff-base and zsh (courier's manual page
#                              and zsh completion), chromium (headless, opens the pages
#                              WebPageRequest saves), and a Python virtual environment with httpbin,
#                              gunicorn, botocore (the S3 signer tests' second implementation)
#                              and moto's server (the S3 interop tests' S3) at the versions pinned in
#                              scripts/interop-requirements.txt, in $COURIER_INTEROP_VENV
#                              (default: ${XDG_CACHE_HOME:-$HOME/.cache}/courier/interop-venv),
#                              where the interop tests look for it.
set -euo pipefail
scripts="$(cd "$(dirname "$0")" && pwd)"

tests=false
for argument in "$@"; do
    case "$argument" in
    --tests) tests=true ;;
    *)
        echo "usage: $0 [--tests]" >&2
        exit 2
        ;;
    esac
done

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

python=python3
packages=(libcurl4-openssl-dev zlib1g-dev duktape-dev libssl-dev libxml2-dev pkg-config media-types)
if [ "$tests" = true ]; then
    packages+=(nginx libnginx-mod-stream openssl curl tinyproxy dante-server groff-base zsh chromium)
    # The venv needs a python3 with venv and ensurepip; Debian splits those into python3-venv.
    if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        python=/usr/bin/python3
        packages+=(python3-venv)
    fi
fi

missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

# Keeps Debian's maintainer scripts from starting services (nginx's default site on port 80)
# while packages install: invoke-rc.d and deb-systemd-invoke both ask policy-rc.d, and 101 means
# "not allowed". Any policy-rc.d already there is put back afterwards.
policy=/usr/sbin/policy-rc.d
saved_policy=""
restore_policy() {
    if [ -n "$saved_policy" ]; then
        $sudo mv -f "$saved_policy" "$policy"
    else
        $sudo rm -f "$policy"
    fi
}

if [ ${#missing[@]} -gt 0 ]; then
    if [ -e "$policy" ]; then
        saved_policy="$policy.courier-saved"
        $sudo cp -p "$policy" "$saved_policy"
    fi
    trap restore_policy EXIT
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
    restore_policy
    trap - EXIT
    # Installing nginx enables its service for the next boot; the tests run their own nginx.
    if [[ " ${missing[*]} " == *" nginx "* ]]; then
        if [ -d /run/systemd/system ]; then
            $sudo systemctl disable --now nginx.service >/dev/null 2>&1 || true
        else
            $sudo update-rc.d nginx disable >/dev/null 2>&1 || true
        fi
    fi
fi

[ "$tests" = true ] || exit 0

# The interop tests' Python servers (httpbin, moto) and the S3 tests' botocore, in a virtual
# environment of their own so the pins touch nothing else. A copy of the requirements inside it
# records what it holds.
requirements="$scripts/interop-requirements.txt"
home="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
venv="${COURIER_INTEROP_VENV:-${XDG_CACHE_HOME:-$home/.cache}/courier/interop-venv}"
if ! cmp -s "$requirements" "$venv/requirements.txt" || ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    "$venv/bin/python" -c 'import httpbin, gunicorn, botocore, moto.server'
    cp "$requirements" "$venv/requirements.txt"
fi
