//go:build integration

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// probe is a loopback server that counts what k6's connection, redirect, batch and
// local-address options change: requests, connections, the most requests in flight at
// once and the peers' addresses. /redir/N redirects N times; /slow answers after 100 ms.
type probe struct {
	url                      string
	requests, conns, maxBusy atomic.Int64
	busy                     atomic.Int64
	mu                       sync.Mutex
	peers                    map[string]bool
}

func startProbe(t *testing.T) *probe {
	t.Helper()
	p := &probe{peers: map[string]bool{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		n := p.busy.Add(1)
		defer p.busy.Add(-1)
		for m := p.maxBusy.Load(); n > m && !p.maxBusy.CompareAndSwap(m, n); m = p.maxBusy.Load() {
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		p.mu.Lock()
		p.peers[host] = true
		p.mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/redir/"):
			if k, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/redir/")); k > 0 {
				http.Redirect(w, r, "/redir/"+strconv.Itoa(k-1), http.StatusFound)
				return
			}
		case r.URL.Path == "/slow":
			time.Sleep(100 * time.Millisecond)
		}
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// onProbe is a case whose script uses {{PROBE}} for the probe's address.
func onProbe(p *probe, tc cliCase) cliCase {
	tc.script = strings.ReplaceAll(tc.script, "{{PROBE}}", p.url)
	return tc
}

// consoleScript logs at every level.
const consoleScript = `export const options = { iterations: 1 };
export default function () { console.log('hello world'); console.debug('debug line'); console.warn('warn line'); }
`

// TestK6V2Flags: each flag and K6_* variable of issue 25 (k6 v2.3's run flags that
// exited 104 or had no effect) runs through the real binary and shows its effect.
func TestK6V2Flags(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	plainConsole := regexp.MustCompile(`(?m)^time="[^"]+" level=info msg="hello world" source=console$`)
	for _, tc := range []cliCase{
		{name: "console text", script: consoleScript, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, plainConsole, r.stderr)
			require.Regexp(t, `(?m)^time="[^"]+" level=warning msg="warn line" source=console$`, r.stderr)
			require.NotContains(t, r.stderr, "debug line")
		}},
		{name: "-v", script: consoleScript, args: []string{"-v"}, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, `level=debug msg="debug line" source=console`, r.stderr)
		}},
		{name: "--log-format json", script: consoleScript, args: []string{"--log-format", "json"}, check: jsonConsole},
		{name: "K6_LOG_FORMAT", script: consoleScript, env: []string{"K6_LOG_FORMAT=json"}, check: jsonConsole},
		{name: "--log-format raw", script: consoleScript, args: []string{"--log-format=raw"}, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, `(?m)^hello world$`, r.stderr)
		}},
		{name: "--log-output stdout", script: consoleScript, args: []string{"--log-output", "stdout"}, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, plainConsole, r.stdout)
			require.NotContains(t, r.stderr, "hello world")
		}},
		{name: "K6_LOG_OUTPUT none", script: consoleScript, env: []string{"K6_LOG_OUTPUT=none"}, check: func(t *testing.T, r cliRun) {
			require.NotContains(t, r.stderr+r.stdout, "hello world")
		}},
		{name: "--log-output file level", script: consoleScript, args: []string{"--log-output=file={{DIR}}/k6.log,level=warning"}, check: func(t *testing.T, r cliRun) {
			log := r.read(t, "k6.log")
			require.Contains(t, log, `msg="warn line"`)
			require.NotContains(t, log+r.stderr, "hello world")
		}},
		{name: "--log-output loki", script: consoleScript, args: []string{"--log-output=loki=http://127.0.0.1:1"}, code: exitcode.InvalidConfig, check: func(t *testing.T, r cliRun) {
			require.Contains(t, r.stderr, "Loki is not supported")
		}},
		{name: "--console-output", script: consoleScript, args: []string{"--console-output", "{{DIR}}/console.log"}, check: consoleFile},
		{name: "K6_CONSOLE_OUTPUT", script: consoleScript, env: []string{"K6_CONSOLE_OUTPUT={{DIR}}/console.log"}, check: consoleFile},
		{name: "--no-color", script: consoleScript, args: []string{"--no-color"}, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, plainConsole, r.stderr)
			require.NotContains(t, r.stdout+r.stderr, "\x1b[")
		}},
		{name: "K6_NO_COLOR", script: consoleScript, env: []string{"K6_NO_COLOR=true"}, check: func(t *testing.T, r cliRun) {
			require.NotContains(t, r.stdout+r.stderr, "\x1b[")
		}},
		{name: "-q", script: getScript, args: []string{"-q", "-i", "1"}, served: 1, check: noBanner},
		{name: "K6_QUIET", script: getScript, args: []string{"-i", "1"}, env: []string{"K6_QUIET=true"}, served: 1, check: noBanner},
		{name: "banner without -q", script: getScript, args: []string{"-i", "1"}, served: 1, check: func(t *testing.T, r cliRun) {
			require.Regexp(t, `(?m)^  tidemark \S+$`, r.stdout)
		}},
		{name: "-c", script: getScript, args: append([]string{"-c", "{{DIR}}/config.json"}, exportFlags...), served: 9, check: vusMaxIs(3)},
		{name: "--config under the script", script: `import http from 'k6/http';
export const options = { iterations: 12 };
export default function () { http.get('{{URL}}/'); }
`, args: append([]string{"--config", "{{DIR}}/config.json"}, exportFlags...), served: 12, check: vusMaxIs(3)},
		{name: "K6_CONFIG", script: getScript, env: []string{"K6_CONFIG={{DIR}}/config.json"}, served: 9},
		{name: "--discard-response-bodies", script: bodyScript, args: []string{"--discard-response-bodies"}, served: 1},
		{name: "K6_DISCARD_RESPONSE_BODIES", script: bodyScript, env: []string{"K6_DISCARD_RESPONSE_BODIES=true"}, served: 1},
		{name: "--discard-response-bodies off", script: bodyScript, code: exitcode.ThresholdsFailed, served: 1},
		{name: "--blacklist-ip", script: codeScript("'{{URL}}'", 1110), args: []string{"--blacklist-ip", "127.0.0.0/8"}, served: 0},
		{name: "K6_BLACKLIST_IPS", script: codeScript("'{{URL}}'", 1110), env: []string{"K6_BLACKLIST_IPS=10.0.0.0/8,127.0.0.1/32"}, served: 0},
		{name: "--block-hostnames", script: codeScript(localhostURL, 1111), args: []string{"--block-hostnames", "*host"}, served: 0},
		{name: "K6_BLOCK_HOSTNAMES", script: codeScript(localhostURL, 1111), env: []string{"K6_BLOCK_HOSTNAMES=localhost"}, served: 0},
		{name: "--min-iteration-duration", script: getScript, args: append([]string{"-i", "2", "--min-iteration-duration", "300ms"}, exportFlags...), served: 2, check: minIteration},
		{name: "K6_MIN_ITERATION_DURATION", script: getScript, args: append([]string{"-i", "2"}, exportFlags...), env: []string{"K6_MIN_ITERATION_DURATION=300ms"}, served: 2, check: minIteration},
		{name: "--rps", script: getScript, args: append([]string{"-i", "6", "--rps", "10"}, exportFlags...), served: 6, check: slowRate},
		{name: "K6_RPS", script: getScript, args: append([]string{"-i", "6"}, exportFlags...), env: []string{"K6_RPS=10"}, served: 6, check: slowRate},
		{name: "--dns", script: codeScript(localhostURL, 0), args: []string{"--dns", "ttl=1m,select=first,policy=onlyIPv4"}, served: 1},
		{name: "K6_DNS bad", script: getScript, env: []string{"K6_DNS=select=nearest"}, code: exitcode.InvalidConfig, served: 0, check: func(t *testing.T, r cliRun) {
			require.Contains(t, r.stderr, "expected first, random or roundRobin")
		}},
		{name: "--secret-source", script: secretScript, args: []string{"--secret-source=file={{DIR}}/secrets"}, check: redacted},
		{name: "K6_SECRET_SOURCE", script: secretScript, env: []string{"K6_SECRET_SOURCE=mock=token=s3cr3t-v4lue"}, check: redacted},
		{name: "secrets module file", script: secretsModuleScript, args: []string{"--secret-source=file=name=f,filename={{DIR}}/secrets,default", "--secret-source=mock=name=m,other=0th3r-v4lue"}, check: secretsRead},
		{name: "secrets module K6_SECRET_SOURCE", script: secretsModuleScript, env: []string{"K6_SECRET_SOURCE=mock=token=s3cr3t-v4lue"}, check: secretsRead},
		{name: "--compatibility-mode --type", script: getScript, args: []string{"--compatibility-mode", "base", "--type", "js", "-i", "1"}, served: 1},
		{name: "--compatibility-mode bad", script: getScript, args: []string{"--compatibility-mode", "es6"}, code: exitcode.InvalidConfig, served: 0},
		{name: "--scenario", script: twoScenarios, args: []string{"--scenario", "b"}, served: 3},
		{name: "--scenario unknown", script: twoScenarios, args: []string{"--scenario", "c"}, code: exitcode.InvalidConfig, served: 0, check: func(t *testing.T, r cliRun) {
			require.Contains(t, r.stderr, `--scenario "c": the test has no such scenario; it has a, b`)
		}},
		{name: "--features", script: getScript, args: []string{"--features", "native-histograms,merge-run-tags", "-i", "1"}, served: 1},
		{name: "--no-summary warns", script: getScript, args: []string{"--no-summary", "-i", "1"}, served: 1, check: func(t *testing.T, r cliRun) {
			require.Contains(t, r.stderr, "use --summary-mode=disabled")
			require.NotContains(t, r.stdout, "TOTAL RESULTS")
		}},
		{name: "--summary-mode legacy", script: getScript, args: []string{"--summary-mode", "legacy", "-i", "1"}, served: 1, check: func(t *testing.T, r cliRun) {
			require.Contains(t, r.stderr, "legacy was removed in k6 v2")
		}},
		{name: "--summary-mode full", script: getScript, args: []string{"--summary-mode=full", "-i", "1"}, served: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCaseWith(t, bin, tc, map[string]string{
				"config.json": `{"vus": 3, "iterations": 9, "collectors": {}}`,
				"secrets":     "token=s3cr3t-v4lue\n",
			})
			require.Equal(t, tc.code, r.code, "exit code\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			if tc.served >= 0 {
				require.Equal(t, tc.served, r.served, "requests served\n%s", r.stderr)
			}
			require.NotContains(t, r.stderr, "not supported by Tidemark and have no effect")
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

var exportFlags = []string{"--summary-export", "{{DIR}}/export.json"}

func vusMaxIs(n float64) func(t *testing.T, r cliRun) {
	return func(t *testing.T, r cliRun) {
		t.Helper()
		require.Equal(t, n, r.exported(t, "export.json", "vus_max", "max"), r.stderr)
	}
}

func jsonConsole(t *testing.T, r cliRun) {
	t.Helper()
	for line := range strings.SplitSeq(r.stderr, "\n") {
		if strings.Contains(line, "hello world") {
			var obj map[string]string
			require.NoError(t, json.Unmarshal([]byte(line), &obj), line)
			require.Equal(t, "info", obj["level"])
			require.Equal(t, "hello world", obj["msg"])
			require.Equal(t, "console", obj["source"])
			_, err := time.Parse(time.RFC3339Nano, obj["time"])
			require.NoError(t, err)
			return
		}
	}
	t.Fatalf("no console line in\n%s", r.stderr)
}

func consoleFile(t *testing.T, r cliRun) {
	t.Helper()
	require.Regexp(t, `(?m)^time="[^"]+" level=info msg="hello world" source=console$`, r.read(t, "console.log"))
	require.NotContains(t, r.stderr, "hello world")
}

func noBanner(t *testing.T, r cliRun) {
	t.Helper()
	require.NotRegexp(t, `(?m)^  tidemark `, r.stdout)
	require.Contains(t, r.stdout, "script: script.js")
}

func minIteration(t *testing.T, r cliRun) {
	t.Helper()
	require.GreaterOrEqual(t, r.exported(t, "export.json", "iteration_duration", "min"), 300.0, r.stderr)
}

// slowRate: 6 requests at 10 per second take at least 0.5 s.
func slowRate(t *testing.T, r cliRun) {
	t.Helper()
	require.Less(t, r.exported(t, "export.json", "http_reqs", "rate"), 12.5, r.stderr)
}

// secretsRead: k6/secrets read the secret (a check on its value passes), and no log
// line shows it: console.log in the iteration and in handleSummary, an exception, a
// not-found error naming the source and the key.
func secretsRead(t *testing.T, r cliRun) {
	t.Helper()
	require.Contains(t, r.stderr, `msg="token is ***SECRET_REDACTED***" source=console`)
	require.Contains(t, r.stderr, `msg="summary with ***SECRET_REDACTED***" source=console`)
	require.Contains(t, r.stderr, `get secret \"nope\" from source`)
	require.Contains(t, r.stderr, "thrown ***SECRET_REDACTED***")
	require.NotContains(t, r.stderr+r.stdout, "s3cr3t-v4lue")
	require.Contains(t, r.stdout, "checks passed: 2")
}

func redacted(t *testing.T, r cliRun) {
	t.Helper()
	require.Contains(t, r.stderr, `msg="token is ***SECRET_REDACTED***" source=console`)
	require.NotContains(t, r.stderr+r.stdout, "s3cr3t-v4lue")
}

const (
	bodyScript = `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () { const r = http.get('{{URL}}/'); check(r, { 'no body': (r) => r.body === null }); }
`
	secretsModuleScript = `import secrets from 'k6/secrets';
import { check } from 'k6';
export const options = { iterations: 2 };
export default async function () {
  const token = await secrets.get('token');
  check(token, { 'secret value': (v) => v === 's3cr3t-v4lue' });
  if (__ITER === 0) {
    console.log('token is ' + token);
    await secrets.get('nope').catch((e) => console.log('nope: ' + e));
    return;
  }
  throw new Error('thrown ' + token);
}
export function handleSummary(data) {
  secrets.get('token').then((v) => console.log('summary with ' + v));
  return { stdout: 'checks passed: ' + data.metrics.checks.values.passes + '\n' };
}
`
	secretScript = `export const options = { iterations: 1 };
export default function () { console.log('token is s3cr3t-v4lue'); }
`
	twoScenarios = `import http from 'k6/http';
export const options = { scenarios: {
  a: { executor: 'shared-iterations', exec: 'a', vus: 1, iterations: 2 },
  b: { executor: 'shared-iterations', exec: 'b', vus: 1, iterations: 3 },
} };
export function a() { http.get('{{URL}}/'); }
export function b() { http.get('{{URL}}/'); }
`
)

// localhostURL is the target's address by the name localhost.
const localhostURL = "'{{URL}}'.replace('127.0.0.1', 'localhost')"

// codeScript requests url (a JavaScript expression) once and checks the response's error_code (0: a 200).
func codeScript(url string, code int) string {
	want := "r.status === 200"
	if code != 0 {
		want = "r.error_code === " + strconv.Itoa(code)
	}
	return `import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () { const r = http.get(` + url + ` + '/'); check(r, { 'code': (r) => ` + want + ` }); }
`
}

// runCaseWith is runCase with files written beside the script first.
func runCaseWith(t *testing.T, bin string, tc cliCase, files map[string]string) cliRun {
	t.Helper()
	tc.args = append([]string{"--testid", "t"}, tc.args...)
	// The files the run reads, in a directory of their own.
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	for i, a := range tc.args {
		tc.args[i] = strings.ReplaceAll(a, "{{DIR}}/config.json", filepath.Join(dir, "config.json"))
		tc.args[i] = strings.ReplaceAll(tc.args[i], "{{DIR}}/secrets", filepath.Join(dir, "secrets"))
	}
	for i, e := range tc.env {
		tc.env[i] = strings.ReplaceAll(strings.ReplaceAll(e, "{{DIR}}/config.json", filepath.Join(dir, "config.json")), "{{DIR}}/secrets", filepath.Join(dir, "secrets"))
	}
	return runCase(t, bin, tc)
}

// TestK6V2Probe: the flags whose effect is on connections, redirects and batches,
// against a server that counts them.
func TestK6V2Probe(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	redirScript := `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () { http.get('{{PROBE}}/redir/3'); }
`
	twoGets := `import http from 'k6/http';
export const options = { vus: 1, iterations: 3 };
export default function () { http.get('{{PROBE}}/'); http.get('{{PROBE}}/'); }
`
	batch := `import http from 'k6/http';
export const options = { iterations: 1 };
export default function () { http.batch(['{{PROBE}}/slow', '{{PROBE}}/slow', '{{PROBE}}/slow', '{{PROBE}}/slow']); }
`
	for _, c := range []struct {
		name, script string
		args, env    []string
		check        func(t *testing.T, p *probe)
	}{
		{"--max-redirects 0", redirScript, []string{"--max-redirects", "0"}, nil, requests(1)},
		{"K6_MAX_REDIRECTS", redirScript, nil, []string{"K6_MAX_REDIRECTS=1"}, requests(2)},
		{"redirects by default", redirScript, nil, nil, requests(4)},
		{"--no-connection-reuse", twoGets, []string{"--no-connection-reuse"}, nil, conns(6)},
		{"K6_NO_CONNECTION_REUSE", twoGets, nil, []string{"K6_NO_CONNECTION_REUSE=true"}, conns(6)},
		{"--no-vu-connection-reuse", twoGets, []string{"--no-vu-connection-reuse"}, nil, conns(3)},
		{"K6_NO_VU_CONNECTION_REUSE", twoGets, nil, []string{"K6_NO_VU_CONNECTION_REUSE=true"}, conns(3)},
		{"connections reused by default", twoGets, nil, nil, conns(1)},
		{"--batch 1", batch, []string{"--batch", "1"}, nil, maxBusy(1)},
		{"K6_BATCH_PER_HOST", batch, nil, []string{"K6_BATCH_PER_HOST=2"}, maxBusy(2)},
		{"--batch-per-host 3", batch, []string{"--batch-per-host", "3"}, nil, maxBusy(3)},
		{"--local-ips", twoGets, []string{"--local-ips", "127.0.0.2"}, nil, peer("127.0.0.2")},
		{"K6_LOCAL_IPS", twoGets, nil, []string{"K6_LOCAL_IPS=127.0.0.3-127.0.0.4"}, peer("127.0.0.3")},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := startProbe(t)
			r := runCase(t, bin, onProbe(p, cliCase{script: c.script, args: append([]string{"-q"}, c.args...), env: c.env}))
			require.Equal(t, exitcode.OK, r.code, r.stderr)
			c.check(t, p)
		})
	}
}

func requests(n int64) func(t *testing.T, p *probe) {
	return func(t *testing.T, p *probe) { t.Helper(); require.Equal(t, n, p.requests.Load()) }
}

func conns(n int64) func(t *testing.T, p *probe) {
	return func(t *testing.T, p *probe) { t.Helper(); require.Equal(t, n, p.conns.Load()) }
}

func maxBusy(n int64) func(t *testing.T, p *probe) {
	return func(t *testing.T, p *probe) { t.Helper(); require.Equal(t, n, p.maxBusy.Load()) }
}

func peer(ip string) func(t *testing.T, p *probe) {
	return func(t *testing.T, p *probe) {
		t.Helper()
		p.mu.Lock()
		defer p.mu.Unlock()
		require.Equal(t, map[string]bool{ip: true}, p.peers)
	}
}

// TestK6V2SystemTags: --system-tags (and K6_SYSTEM_TAGS) leave only the listed system
// tags on the samples --out json writes.
func TestK6V2SystemTags(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	for _, c := range []struct {
		name      string
		args, env []string
	}{
		{"--system-tags", []string{"--system-tags", "status,method"}, nil},
		{"K6_SYSTEM_TAGS", nil, []string{"K6_SYSTEM_TAGS=status,method"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := runCase(t, bin, cliCase{script: getScript, args: append([]string{"-q", "-i", "2", "--out", "json={{DIR}}/out.json"}, c.args...), env: c.env})
			require.Equal(t, exitcode.OK, r.code, r.stderr)
			keys := map[string]bool{}
			sc := bufio.NewScanner(strings.NewReader(r.read(t, "out.json")))
			for sc.Scan() {
				var line struct {
					Type, Metric string
					Data         struct{ Tags map[string]string }
				}
				require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
				if line.Type == "Point" && line.Metric == "http_reqs" {
					for k := range line.Data.Tags {
						keys[k] = true
					}
				}
			}
			require.Equal(t, map[string]bool{"status": true, "method": true, "testid": true}, keys)
		})
	}
}

// TestK6V2RunStdin: `run -` runs the script it reads on stdin.
func TestK6V2RunStdin(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	p := startProbe(t)
	cmd := exec.Command(bin, "run", "-q", "--no-embedded-store", "-i", "3", "-")
	cmd.Dir, cmd.Env = t.TempDir(), cliEnv(nil)
	cmd.Stdin = strings.NewReader("import http from 'k6/http';\nexport default function () { http.get('" + p.url + "/'); }\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	require.Equal(t, int64(3), p.requests.Load())
}

// TestK6V2Version: `version` never prints an empty version, even from a plain go
// build; `version --json` prints it as JSON.
func TestK6V2Version(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	out, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	require.Regexp(t, `^tidemark (v\S+|devel) \((commit/[0-9a-f]+, )?go[0-9.]+\S*, \w+/\w+\)\n$`, string(out))
	out, err = exec.Command(bin, "version", "--json").Output()
	require.NoError(t, err)
	var v map[string]string
	require.NoError(t, json.Unmarshal(out, &v))
	require.NotEmpty(t, v["version"])
}

// TestK6V2NoColorOnTerminal: on a terminal (script(1) gives the run one) the log and
// the summary are coloured as k6's (INFO[0000] …); --no-color and K6_NO_COLOR make
// them plain.
func TestK6V2NoColorOnTerminal(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "tidemark")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.js"), []byte(consoleScript), 0o600))
	onTerminal := func(flags string, env ...string) string {
		cmd := exec.Command("script", "-qec", bin+" run -q --no-embedded-store "+flags+" s.js", "/dev/null")
		cmd.Dir, cmd.Env = dir, cliEnv(append(env, "TERM=xterm"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	require.Regexp(t, `\x1b\[36mINFO\x1b\[0m\[\d{4}\] hello world +\x1b\[36msource\x1b\[0m=console`, onTerminal(""))
	for _, out := range []string{onTerminal("--no-color"), onTerminal("", "K6_NO_COLOR=true")} {
		require.NotContains(t, out, "\x1b[3", "no colour")
		require.Regexp(t, `level=info msg="hello world" source=console`, out)
	}
}
