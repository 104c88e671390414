package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestHelpOnlyPrints: --help on any command, `help COMMAND` and --version print and exit
// 0; they never run the command (a server, the demo) or complain about missing arguments.
func TestHelpOnlyPrints(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--help"}, {"--version"}, {"help", "serve"},
		{"run", "--help"}, {"target", "--help"}, {"serve", "--help"}, {"simulate", "--help"},
		{"correlate", "--help"}, {"compare", "--help"}, {"dashboards", "--help"}, {"demo", "--help"},
	} {
		t.Run(args[0]+" "+args[len(args)-1], func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			require.Equal(t, exitcode.OK, run(args, &stdout, &stderr), "stderr: %s", stderr.String())
			require.Empty(t, stderr.String())
			if args[0] != "--version" {
				require.Contains(t, stdout.String(), "usage: tidemark")
			}
		})
	}
}
