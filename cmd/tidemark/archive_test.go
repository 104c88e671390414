package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/target"
)

// execReqs is the part of `inspect --execution-requirements` k6-operator reads
// (pkg/cloud.InspectOutput), with its JSON names.
type execReqs struct {
	MaxVUs        uint64 `json:"maxVUs"`
	TotalDuration string `json:"totalDuration"`
}

// TestExecutionRequirementsMatchK6: for each script in testdata/execreqs (every
// executor, startTime, gracefulStop, gracefulRampDown, overlapping and sequential
// scenarios, ramps sampled at chosen moments, the shortcuts, setupTimeout), tidemark
// inspect --execution-requirements gives the maxVUs and totalDuration k6 v1.8.1 gives
// (recorded in k6.json), and its stdout is that JSON alone.
func TestExecutionRequirementsMatchK6(t *testing.T) {
	t.Parallel()
	scripts, err := filepath.Glob("testdata/execreqs/*.js")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	golden := filepath.Join("testdata", "execreqs", "k6.json")
	b, err := os.ReadFile(golden)
	require.NoError(t, err)
	var want map[string]execReqs
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, len(scripts), "k6.json has an entry for every script (k6 v1.8.1's recorded numbers)")
	for _, s := range scripts {
		t.Run(filepath.Base(s), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run([]string{"inspect", "--execution-requirements", s}, &stdout, &stderr)
			require.Equal(t, exitcode.OK, code, stderr.String())
			var got execReqs
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), "stdout is JSON alone: %s", stdout.String())
			require.Equal(t, want[filepath.Base(s)], got)
		})
	}
}

// tarEntries lists an archive: name → type flag and link target.
func tarEntries(t *testing.T, p string) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	hdrs, data := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		name := strings.TrimSuffix(h.Name, "/")
		hdrs[name] = h
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		data[name] = b
	}
	return hdrs, data
}

// TestArchive: tidemark archive packs the script as k6 does (metadata.json with its
// options, -e values and file:// name; the script as data and, as a hard link to it,
// under file/<abs path>; its module and its open()ed file under file/), and tidemark
// run of the archive runs it from there, wherever the archive is, with the recorded
// options (thresholds included) and __ENV under the run's own -e.
func TestArchive(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("testdata/archive")
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "test.tar")
	var stdout, stderr bytes.Buffer
	code := run([]string{"archive", filepath.Join(dir, "script.js"), "-e", "STATUS=203", "-O", out, "--tag", "team=cli"}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	require.Empty(t, stdout.String())

	hdrs, data := tarEntries(t, out)
	main := "file" + filepath.ToSlash(filepath.Join(dir, "script.js"))
	require.Contains(t, hdrs, "metadata.json")
	require.Equal(t, byte(tar.TypeLink), hdrs[main].Typeflag, "the main script links to data")
	require.Equal(t, "data", hdrs[main].Linkname)
	src, err := os.ReadFile(filepath.Join(dir, "script.js"))
	require.NoError(t, err)
	require.Equal(t, src, data["data"])
	require.Contains(t, hdrs, "file"+filepath.ToSlash(filepath.Join(dir, "lib", "status.js")))
	require.Equal(t, "from-open\n", string(data["file"+filepath.ToSlash(filepath.Join(dir, "data", "extra.txt"))]))

	var meta struct {
		Type     string         `json:"type"`
		Filename string         `json:"filename"`
		Env      map[string]any `json:"env"`
		Options  map[string]any `json:"options"`
	}
	require.NoError(t, json.Unmarshal(data["metadata.json"], &meta))
	require.Equal(t, "js", meta.Type)
	require.Equal(t, "file://"+filepath.ToSlash(filepath.Join(dir, "script.js")), meta.Filename)
	require.Equal(t, map[string]any{"STATUS": "203"}, meta.Env, "only -e values without --include-system-env-vars")
	require.Equal(t, map[string]any{"team": "cli"}, meta.Options["tags"], "--tag replaces the script's tags, as in k6")
	require.Equal(t, map[string]any{"http_reqs": []any{"count==6"}}, meta.Options["thresholds"])
	require.Contains(t, meta.Options["scenarios"], "load")

	// The run reads the archive alone: moved elsewhere, the script's directory unused.
	moved := filepath.Join(t.TempDir(), "moved.tar")
	require.NoError(t, os.Rename(out, moved))
	ts, url := startTestTarget(t, target.Config{})
	code, _, errOut, ex := runScenario(t, moved, "-e", "URL="+url)
	require.Equal(t, exitcode.OK, code, errOut)
	require.Equal(t, map[string]int64{"203": 6}, ts.Stats().ByStatus, "the recorded options' 6 iterations with the recorded STATUS")
	require.EqualValues(t, 6, ex.Metrics["http_reqs"]["count"])

	// The run's -e wins over the recorded __ENV.
	ts2, url2 := startTestTarget(t, target.Config{})
	code, _, errOut, _ = runScenario(t, moved, "-e", "URL="+url2, "-e", "STATUS=201")
	require.Equal(t, exitcode.OK, code, errOut)
	require.Equal(t, map[string]int64{"201": 6}, ts2.Stats().ByStatus)
}

// TestRunK6Archive: an archive made by k6 v1.8.1 (testdata/archive/k6.tar, of
// script.js with -e STATUS=203) runs with tidemark run, with its recorded options and
// __ENV, and tidemark inspect reads its options; packing it again with tidemark
// archive keeps its files, names and __ENV.
func TestRunK6Archive(t *testing.T) {
	t.Parallel()
	ts, url := startTestTarget(t, target.Config{})
	code, _, errOut, ex := runScenario(t, "testdata/archive/k6.tar", "-e", "URL="+url)
	require.Equal(t, exitcode.OK, code, errOut)
	require.Equal(t, map[string]int64{"203": 6}, ts.Stats().ByStatus)
	require.EqualValues(t, 6, ex.Metrics["http_reqs"]["count"])

	var stdout, stderr bytes.Buffer
	code = run([]string{"inspect", "--execution-requirements", "testdata/archive/k6.tar"}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	var opts map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &opts), stdout.String())
	require.InDelta(t, 2, opts["maxVUs"], 0)
	require.Equal(t, "10m30s", opts["totalDuration"])
	require.Equal(t, map[string]any{"team": "archive"}, opts["tags"])
	require.Empty(t, stderr.String(), "k6's null options read as unset, without a warning")

	again := filepath.Join(t.TempDir(), "again.tar")
	code = run([]string{"archive", "testdata/archive/k6.tar", "-O", again}, &stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	origHdrs, _ := tarEntries(t, "testdata/archive/k6.tar")
	hdrs, data := tarEntries(t, again)
	for name, h := range origHdrs {
		if h.Typeflag != tar.TypeDir {
			require.Contains(t, hdrs, name)
		}
	}
	var meta struct {
		Env map[string]string `json:"env"`
	}
	require.NoError(t, json.Unmarshal(data["metadata.json"], &meta))
	require.Equal(t, map[string]string{"STATUS": "203"}, meta.Env)
}

// TestArchiveErrors: a scenario file, a missing script and a tar that is no k6
// archive are refused with exit 104 and say why.
func TestArchiveErrors(t *testing.T) {
	t.Parallel()
	notK6 := filepath.Join(t.TempDir(), "other.tar")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "readme.txt", Mode: 0o644, Size: 2}))
	_, err := tw.Write([]byte("hi"))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, os.WriteFile(notK6, buf.Bytes(), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"scenario file", []string{"archive", "../../examples/spike.yaml"}, "a YAML or JSON scenario file has no archive form"},
		{"no such script", []string{"archive", "testdata/archive/missing.js", "-O", filepath.Join(t.TempDir(), "x.tar")}, "does not exist"},
		{"not a k6 archive", []string{"run", notK6}, "no metadata.json: not a k6 archive"},
		{"bad flag value", []string{"archive", "-u", "x", "testdata/archive/script.js"}, `--vus "x"`},
		{"missing directory", []string{"archive", "testdata/archive/script.js", "-O", "/nonexistent/dir/x.tar"}, "the directory /nonexistent/dir does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			require.NotEqual(t, exitcode.OK, code)
			require.Contains(t, stderr.String(), tc.want)
		})
	}
}

// TestArchiveK6V2Flags: k6-operator's initializer passes a TestRun's arguments to
// `k6 archive`: k6's logging flags are accepted, and the option flags (and the -c
// file) are recorded in the archive's options as K6_* variables are.
func TestArchiveK6V2Flags(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("testdata/archive")
	require.NoError(t, err)
	tmp := t.TempDir()
	config := filepath.Join(tmp, "config.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"batch": 3}`), 0o600))
	out := filepath.Join(tmp, "test.tar")
	var stdout, stderr bytes.Buffer
	code := run([]string{"archive", filepath.Join(dir, "script.js"), "-O", out, "--no-color", "--log-format", "json", "-c", config,
		"--rps", "5", "--system-tags", "status,url", "--no-vu-connection-reuse", "--blacklist-ip", "10.0.0.0/8", "--compatibility-mode", "base"},
		&stdout, &stderr)
	require.Equal(t, exitcode.OK, code, stderr.String())
	_, data := tarEntries(t, out)
	var meta struct {
		Options map[string]any `json:"options"`
	}
	require.NoError(t, json.Unmarshal(data["metadata.json"], &meta))
	require.InDelta(t, 5, meta.Options["rps"], 0)
	require.InDelta(t, 3, meta.Options["batch"], 0)
	require.Equal(t, []any{"status", "url"}, meta.Options["systemTags"])
	require.Equal(t, true, meta.Options["noVUConnectionReuse"])
	require.Equal(t, []any{"10.0.0.0/8"}, meta.Options["blacklistIPs"])
}
