#!/usr/bin/env bash
# Installs the Debian packages given as arguments when their commands are missing.
# Used by `make test` and CI; a no-op on a machine that has them.
set -euo pipefail
missing=()
for pkg in "$@"; do
  case "$pkg" in
    prometheus) cmd=prometheus ;;
    victoria-metrics) cmd=victoria-metrics ;;
    chromium) cmd=chromium ;;
    *) cmd=$pkg ;;
  esac
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
