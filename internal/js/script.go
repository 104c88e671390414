package js

import (
	"path/filepath"
	"slices"
	"strings"
)

// IsScript reports whether path names a script (.js, .mjs, .cjs, .ts) rather than a
// YAML or JSON scenario file.
func IsScript(path string) bool {
	return slices.Contains([]string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"}, strings.ToLower(filepath.Ext(path)))
}
