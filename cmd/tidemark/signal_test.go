package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestSignalInterruptsScript is issue 24's first signal ignored: a script whose init
// context or handleSummary never returns (`while (true) {}`) went on after the first
// SIGINT or SIGTERM, and only a second one ended the process, without a summary. The
// first signal interrupts the JavaScript there, as in k6, and the run exits 105.
func TestSignalInterruptsScript(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	for _, tc := range []struct {
		name, script, mark string
		sig                syscall.Signal
	}{
		{"init context, SIGINT", "console.log('in init'); while (true) {}\nexport default function () {}\n", "in init", syscall.SIGINT},
		{"init context, SIGTERM", "console.log('in init'); while (true) {}\nexport default function () {}\n", "in init", syscall.SIGTERM},
		{"handleSummary, SIGINT", "export const options = { iterations: 1 };\nexport default function () {}\n" +
			"export function handleSummary() { console.log('in handleSummary'); while (true) {} }\n", "in handleSummary", syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "script.js")
			require.NoError(t, os.WriteFile(p, []byte(tc.script), 0o600))
			var out syncBuffer
			cmd := exec.Command(bin, "run", "--no-embedded-store", "-q", p)
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() { _ = cmd.Process.Kill() }()
			require.Eventually(t, func() bool { return strings.Contains(out.String(), tc.mark) }, 30*time.Second, 20*time.Millisecond, "never reached: %s", out.String())
			require.NoError(t, cmd.Process.Signal(tc.sig))
			select {
			case err := <-exited:
				require.Error(t, err, "a non-zero exit")
			case <-time.After(10 * time.Second):
				t.Fatalf("the first %s was ignored:\n%s", tc.sig, out.String())
			}
			require.Equal(t, exitcode.ExternalAbort, cmd.ProcessState.ExitCode(), out.String())
			require.Contains(t, out.String(), "interrupted")
		})
	}
}
