package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/examples"
	"github.com/tidemark/tidemark/internal/exitcode"
)

// TestDemoRejectsBadDurations: bad durations stop the demo before it starts anything.
func TestDemoRejectsBadDurations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "zero scrape interval", args: []string{"--scrape.interval", "0s"}, wantErr: "--scrape.interval 0s: expected a positive duration"},
		{name: "sub-millisecond scrape interval", args: []string{"--scrape.interval", "1500us"}, wantErr: "--scrape.interval 1.5ms"},
		{name: "negative cooldown", args: []string{"--cooldown=-1s"}, wantErr: "--cooldown -1s: expected a duration of zero or more"},
		{name: "zero stabilisation window", args: []string{"--fast.downscale-stabilization", "0s"}, wantErr: "--fast.downscale-stabilization 0s: expected a positive duration"},
		{name: "negative stabilisation window", args: []string{"--fast.downscale-stabilization=-30s"}, wantErr: "--fast.downscale-stabilization -30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "demo")
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"demo", "--quiet", "--output.dir", out}, tc.args...), &stdout, &stderr)
			require.Equal(t, exitcode.InvalidConfig, code, "stderr: %s", stderr.String())
			require.Contains(t, stderr.String(), tc.wantErr)
			require.NoDirExists(t, out, "nothing is started")
		})
	}
}

// TestDemoInputs: without --profile or --scenario the demo reads the built-in examples;
// a file that cannot be read is a configuration error before anything starts.
func TestDemoInputs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{demoProfile, demoScenario} {
		b, where, err := readInput("", name)
		require.NoError(t, err)
		want, err := examples.Read(name)
		require.NoError(t, err)
		require.Equal(t, want, b)
		require.Equal(t, "examples/"+name+" (built in)", where)
	}
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	out := filepath.Join(t.TempDir(), "demo")
	var stdout, stderr bytes.Buffer
	code := run([]string{"demo", "--quiet", "--output.dir", out, "--profile", missing}, &stdout, &stderr)
	require.Equal(t, exitcode.InvalidConfig, code, "stderr: %s", stderr.String())
	require.Contains(t, stderr.String(), "tidemark demo: read "+missing)
	require.NoDirExists(t, out, "nothing is started")
}
