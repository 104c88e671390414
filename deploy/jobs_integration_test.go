//go:build integration

package deploy

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/promtest"
)

// quickSpike has the shape of scenarios/spike.yaml (ramping arrival rate, the same
// thresholds and flow) but lasts 10 seconds.
const quickSpike = `
scenarios:
  spike:
    executor: ramping-arrival-rate
    startRate: 5
    timeUnit: 1s
    preAllocatedVUs: 2
    maxVUs: 5
    stages:
      - { duration: 5s, target: 10 }
      - { duration: 5s, target: 5 }
thresholds:
  http_req_duration: ['p(95)<500']
  http_req_failed: ['rate<0.01']
flow:
  - name: order
    url: ${__ENV.TARGET_URL}/orders/${__RANDOM_INT(1,1000)}
    checks:
      - status: 200
`

// container is what a Job would run: the first container of a CronJob's pod template.
type container struct {
	args   []string
	env    map[string]string
	mounts map[string]string // mountPath -> volume name
}

func cronJobContainer(t *testing.T, objs []object, name string, env map[string]string) container {
	t.Helper()
	cj, ok := byKind(objs, "CronJob")[name]
	require.True(t, ok, name)
	c := list(cj.raw, "spec", "jobTemplate", "spec", "template", "spec", "containers")[0]
	cms := byKind(objs, "ConfigMap")
	out := container{env: map[string]string{}, mounts: map[string]string{}}
	for _, e := range list(c, "envFrom") {
		for k, v := range asMap(get(cms[str(e, "configMapRef", "name")].raw, "data")) {
			out.env[k], _ = v.(string)
		}
	}
	for _, e := range list(c, "env") {
		n := str(e, "name")
		if ref := get(e, "valueFrom", "configMapKeyRef"); ref != nil {
			out.env[n] = str(cms[str(ref, "name")].raw, "data", str(ref, "key"))
		}
	}
	// what the cluster would provide, or the test overrides
	maps.Copy(out.env, env)
	for _, m := range list(c, "volumeMounts") {
		out.mounts[str(m, "mountPath")] = str(m, "name")
	}
	varRef := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, a := range list(c, "args") {
		s, _ := a.(string)
		out.args = append(out.args, varRef.ReplaceAllStringFunc(s, func(m string) string {
			return out.env[m[2:len(m)-1]]
		}))
	}
	return out
}

// local maps the container's mount paths to directories of the test.
func (c container) local(dirs map[string]string) []string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = a
		for mount, dir := range dirs {
			if strings.Contains(a, mount) {
				args[i] = strings.Replace(a, mount, dir, 1)
			}
		}
	}
	return args
}

func (c container) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	return env
}

// TestJobCommandLinesRun runs the two jobs' command lines, exactly as the manifests build
// them from the ConfigMaps (args, $(VAR) expansion, envFrom), with the tidemark binary
// against a real Prometheus: the load test remote-writes its series through k6's
// environment variables, then correlate finds the run, writes its reports and prints the
// dashboard link. The manifests and the commands cannot drift apart.
func TestJobCommandLinesRun(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tidemark")
	build := exec.Command("go", "build", "-o", bin, "../cmd/tidemark")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)

	prom := promtest.StartPrometheus(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer target.Close()
	objs := manifests(t)
	const run = "spike-20261130-020000"

	// 1. kubectl create job --from=cronjob/tidemark-load-test "$RUN"
	scenarios, tmp := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(scenarios, "spike.yaml"), []byte(quickSpike), 0o600))
	runner := cronJobContainer(t, objs, "tidemark-load-test", map[string]string{
		"TESTID":                      run, // the Job controller's job-name label
		"K6_PROMETHEUS_RW_SERVER_URL": prom.WriteURL(),
		// Several samples in a 10 s run (the correlator reads the run's start and end
		// from the run-info samples' own timestamps).
		"K6_PROMETHEUS_RW_PUSH_INTERVAL": "1s",
		"TARGET_URL":                     target.URL,
	})
	require.Equal(t, "run", runner.args[0])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, runner.local(map[string]string{"/etc/tidemark/scenarios": scenarios, "/tmp": tmp})...)
	cmd.Env = runner.environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "tidemark %v\nstdout:\n%s\nstderr:\n%s", runner.args, stdout.String(), stderr.String())
	require.FileExists(t, filepath.Join(tmp, "summary.json"))
	promtest.WaitForQuery(t, prom.URL, `last_over_time(tidemark_run_info{testid="`+run+`"}[10m])`, 30*time.Second, promtest.NonEmpty)

	// 2. The correlate-run ConfigMap set to the run, then
	//    kubectl create job --from=cronjob/tidemark-correlate "$RUN-correlate"
	reports := t.TempDir()
	corr := cronJobContainer(t, objs, "tidemark-correlate", map[string]string{
		"TESTID":         run, // from tidemark-correlate-run, set by the README's step
		"PROMETHEUS_URL": prom.URL,
		"GRAFANA_URL":    "https://grafana.example.com",
	})
	require.Equal(t, "correlate", corr.args[0])
	cmd = exec.CommandContext(ctx, bin, corr.local(map[string]string{"/reports": reports})...)
	cmd.Env = corr.environ()
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "tidemark %v\nstdout:\n%s\nstderr:\n%s", corr.args, stdout.String(), stderr.String())
	for _, f := range []string{"report.md", "report.json", "report.html"} {
		require.FileExists(t, filepath.Join(reports, f))
	}
	require.Contains(t, stdout.String(), "https://grafana.example.com/d/tidemark-run-correlation?")
	require.Contains(t, stdout.String(), "var-testid="+run)
}
