// Package ociimage assembles Tidemark's container image from scratch, without a container
// daemon: one layer holding the static binary (also named k6, as k6-operator runs
// `k6 run …`), Debian's CA bundle, a non-root user and, optionally, a static busybox for
// the shell k6-operator's initializer needs. The same inputs give the same bytes: every
// file time is the image's creation time (the commit time, SOURCE_DATE_EPOCH style),
// entries are sorted, owners fixed and the gzip header carries no time, so the same commit
// gives the same digest.
package ociimage
