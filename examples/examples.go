// Package examples holds the example scenarios and simulated-cluster profiles, embedded
// so that `tidemark demo` works from any directory and from the binary alone.
package examples

import (
	"embed"
	"fmt"
)

// files is the embedded examples directory.
//
//go:embed *.yaml
var files embed.FS

// Read returns the embedded example named name, such as "demo-spike.yaml".
func Read(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read the built-in example %q: %w", name, err)
	}
	return b, nil
}
