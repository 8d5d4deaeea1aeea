#!/usr/bin/env bash
# Installs what Courier needs to build and test on a fresh Debian machine. Safe to run again.
set -euo pipefail
packages=(libcurl4-openssl-dev zlib1g-dev pkg-config media-types)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
