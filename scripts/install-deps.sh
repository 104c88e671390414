#!/usr/bin/env bash
# Installs the Debian packages given as arguments when their commands are missing (or, for
# a package whose files are used rather than a command, when dpkg has not installed it).
# Used by `make test` and CI; a no-op on a machine that has them.
set -euo pipefail
missing=()
for pkg in "$@"; do
  case "$pkg" in
    prometheus) cmd=prometheus ;;
    victoria-metrics) cmd=victoria-metrics ;;
    chromium) cmd=chromium ;;
    # make image copies their files: /bin/busybox must be the static one, not the
    # busybox package's dynamically linked binary of the same name.
    busybox-static | ca-certificates) cmd="" ;;
    # Their programs live off PATH (/usr/lib/postgresql/N/bin, /usr/sbin).
    postgresql | mariadb-server) cmd="" ;;
    *) cmd=$pkg ;;
  esac
  if [ -z "$cmd" ]; then
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  else
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
