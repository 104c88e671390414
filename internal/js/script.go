package js

import (
	"path/filepath"
	"slices"
	"strings"
)

// IsScript reports whether path names a script (.js, .mjs, .cjs, .ts) or a k6 archive
// of one (.tar, or any tar file: IsArchive) rather than a YAML or JSON scenario file.
func IsScript(path string) bool {
	return slices.Contains([]string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tar"}, strings.ToLower(filepath.Ext(path))) ||
		IsArchive(path)
}
