#!/usr/bin/env bash
# Refreshes internal/js/testdata/types-k6 from the @types/k6 npm package, the
# declarations TestTypesK6Coverage checks the runtime against. The version is pinned
# and its npm integrity checked.
#   scripts/update-types-k6.sh            # the pinned version
#   VERSION=2.4.0 INTEGRITY=sha512-… scripts/update-types-k6.sh
set -euo pipefail
VERSION=${VERSION:-2.3.0}
INTEGRITY=${INTEGRITY:-sha512-kEiRQx9MRQZ0vAwWgZUyYvuEc1JC++OZbH9uHVLsSOIKFLwHz8UeIV1EuIlB4Fqn03A4ZM+E624zVsvQPAAp6Q==}
dest=$(cd "$(dirname "$0")/.." && pwd)/internal/js/testdata/types-k6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@types/k6@$VERSION" >/dev/null)
tgz=$tmp/types-k6-$VERSION.tgz
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
	echo "update-types-k6: @types/k6@$VERSION has integrity $got, expected $INTEGRITY" >&2
	exit 1
fi
tar -xzf "$tgz" -C "$tmp"
rm -rf "$dest"
mkdir -p "$dest"
(cd "$tmp/k6" && find . \( -name '*.d.ts' -o -name LICENSE -o -name README.md -o -name package.json \) |
	while read -r f; do mkdir -p "$dest/$(dirname "$f")" && cp "$f" "$dest/$f"; done)
echo "internal/js/testdata/types-k6: @types/k6@$VERSION"
