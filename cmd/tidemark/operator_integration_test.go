//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/ociimage"
	"github.com/tidemark/tidemark/internal/promtest"
	"github.com/tidemark/tidemark/internal/target"
)

// operatorScript uses setup data the way a TestRun's script does: every iteration asks
// the target for the status setup() returned, setup() and teardown() each send one
// request of their own (202 and status+1), so the target's counts by status say which
// ran how often and with which data.
const operatorScript = `
import http from 'k6/http';
export const options = { scenarios: { load: { executor: 'shared-iterations', vus: 3, iterations: 30 } } };
export function setup() {
  http.get(__ENV.URL + '/?status=202');
  return { status: Number(__ENV.SETUP_STATUS) };
}
export default function (data) { http.get(__ENV.URL + '/?status=' + data.status); }
export function teardown(data) { http.get(__ENV.URL + '/?status=' + (data.status + 1)); }
`

// operatorRunner is one runner pod's process.
type operatorRunner struct {
	addr   string
	cmd    *exec.Cmd
	stderr *syncBuffer
	err    error
	done   chan struct{}
}

// operatorCall sends one of k6-operator's REST calls to addr and returns the status
// code and body.
func operatorCall(t *testing.T, method, addr, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// segmentFlags are k6-operator's execution segment flags for runner index (1-based) of
// total (pkg/segmentation.NewCommandFragments).
func segmentFlags(index, total int) []string {
	part := func(i int) string {
		switch i {
		case 0:
			return "0"
		case total:
			return "1"
		}
		return fmt.Sprintf("%d/%d", i, total)
	}
	seq := []string{"0"}
	for i := 1; i < total; i++ {
		seq = append(seq, fmt.Sprintf("%d/%d", i, total))
	}
	seq = append(seq, "1")
	return []string{"--execution-segment=" + part(index-1) + ":" + part(index), "--execution-segment-sequence=" + strings.Join(seq, ",")}
}

// operatorCase is one way k6-operator drives a TestRun.
type operatorCase struct {
	name string
	// plz is the private-load-zone form: the runners get --no-setup --no-teardown
	// --linger, and the operator runs setup() and teardown() over the REST API.
	plz bool
	// byStatus is what the target must have served when the runners stopped running.
	byStatus map[string]int64
	// teardowns is the count of teardown() requests (status 204) at the end.
	teardowns int64
}

// TestOperatorTestRun plays k6-operator with Tidemark as the runner image, whose
// binary is called k6. Three runners start with the command line the operator gives a
// TestRun's runner pods (pkg/resources/jobs/runner.go): --quiet, their execution
// segments, spec.arguments, the script, --address, --paused, and the instance_id and
// testrun_name tags. The private-load-zone form adds --no-setup --no-teardown --linger
// -e K6_CLOUDRUN_INSTANCE_ID. Every runner remote-writes to a real Prometheus. As the
// operator does, the test waits for every runner's GET /v1/status. In the
// private-load-zone form it then runs setup() on the first runner (POST /v1/setup) and
// gives its data to all (PUT /v1/setup). It resumes the runners with the starter's
// PATCH and waits until none is running. In the private-load-zone form it then runs
// teardown() on the first runner (POST /v1/teardown) and ends the lingering runners
// (SIGTERM, as deleting the Job does); in the plain form each runner runs setup() and
// teardown() itself and exits on its own. In both forms every runner exits 0, every
// iteration used the setup data, and Prometheus holds one testid whose
// k6_http_reqs_total over the instances equals what the target served.
func TestOperatorTestRun(t *testing.T) {
	t.Parallel()
	bin := tidemarkBinary(t, "k6") // the runner image ships Tidemark as k6
	prom := promtest.StartPrometheus(t)
	for _, tc := range []operatorCase{
		// Each runner runs setup() (one 202 each) and teardown() itself.
		{name: "TestRun", byStatus: map[string]int64{"202": 3, "203": 30}, teardowns: 3},
		// setup() ran once, on the first runner; its data reached every iteration.
		{name: "private load zone", plz: true, byStatus: map[string]int64{"202": 1, "203": 30}, teardowns: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			playOperator(t, bin, prom, tc)
		})
	}
}

func playOperator(t *testing.T, bin string, prom *promtest.Server, tc operatorCase) {
	const n = 3
	testrun := "k6-sample-" + strconv.FormatBool(tc.plz)
	testid := "operator-it-" + strconv.FormatBool(tc.plz)
	ts, url := startTestTarget(t, target.Config{})
	script := filepath.Join(t.TempDir(), "test.js") // the ConfigMap mounted at /test
	require.NoError(t, os.WriteFile(script, []byte(operatorScript), 0o600))

	// spec.arguments of the TestRun (split on whitespace, as the operator does) and
	// spec.runner.env.
	arguments := strings.Fields("--out experimental-prometheus-rw --tag testid=" + testid)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "K6_") })
	env = append(env, "K6_PROMETHEUS_RW_SERVER_URL="+prom.WriteURL(), "K6_PROMETHEUS_RW_PUSH_INTERVAL=1s",
		"URL="+url, "SETUP_STATUS=203")

	exited := func(r *operatorRunner) error {
		select {
		case <-r.done:
			return fmt.Errorf("runner %s exited early: %w\n%s", r.addr, r.err, r.stderr.String())
		default:
			return nil
		}
	}
	launch := func(index int) *operatorRunner {
		r := &operatorRunner{addr: freeAddress(t), stderr: &syncBuffer{}, done: make(chan struct{})}
		// NOTE: the operator listens on 0.0.0.0:6565 in each pod; here the pods share
		// one host, so each runner gets its own loopback port.
		args := []string{"run", "--quiet"}
		args = append(args, segmentFlags(index, n)...)
		args = append(args, arguments...)
		args = append(args, script, "--address="+r.addr, "--paused",
			"--tag", "instance_id="+strconv.Itoa(index), "--tag", "testrun_name="+testrun)
		if tc.plz {
			args = append(args, "--no-setup", "--no-teardown", "--linger", "-e", "K6_CLOUDRUN_INSTANCE_ID="+strconv.Itoa(index))
		}
		r.cmd = exec.Command(bin, args...)
		r.cmd.Args[0] = "k6"
		r.cmd.Env = env
		r.cmd.Stdout, r.cmd.Stderr = io.Discard, r.stderr
		require.NoError(t, r.cmd.Start())
		go func() {
			r.err = r.cmd.Wait()
			close(r.done)
		}()
		t.Cleanup(func() {
			select {
			case <-r.done:
			default:
				_ = r.cmd.Process.Kill()
				<-r.done
			}
		})
		return r
	}
	// ready is the operator's readiness check: GET /v1/status answers below 400. A
	// runner whose free port was taken between freeAddress and its listen is started
	// again on another (retried says so).
	ready := func(r *operatorRunner) (ok, retry bool) {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if err := exited(r); err != nil {
				return false, strings.Contains(r.stderr.String(), "address already in use")
			}
			if resp, err := http.Get("http://" + r.addr + "/v1/status"); err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode < 400 {
					return true, false
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		return false, false
	}
	runners := make([]*operatorRunner, n)
	for i := range runners {
		runners[i] = launch(i + 1)
	}
	for i := range runners {
		for attempt := 1; ; attempt++ {
			ok, retry := ready(runners[i])
			if ok {
				break
			}
			require.True(t, retry && attempt < 3, "runner %d is not ready: %v\n%s", i+1, exited(runners[i]), runners[i].stderr.String())
			runners[i] = launch(i + 1)
		}
	}
	require.Zero(t, ts.Stats().Requests, "paused runners send nothing")

	if tc.plz {
		// testrun.RunSetup on the first runner, testrun.SetSetupData on all.
		code, body := operatorCall(t, http.MethodPost, runners[0].addr, "/v1/setup", "")
		require.Equal(t, http.StatusOK, code, "%s", body)
		var setup struct {
			Data struct {
				Type       string `json:"type"`
				ID         string `json:"id"`
				Attributes struct {
					Data json.RawMessage `json:"data"`
				} `json:"attributes"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(body, &setup), "%s", body)
		require.Equal(t, "setupData", setup.Data.Type)
		require.JSONEq(t, `{"status":203}`, string(setup.Data.Attributes.Data))
		for _, r := range runners {
			code, body := operatorCall(t, http.MethodPut, r.addr, "/v1/setup", string(setup.Data.Attributes.Data))
			require.Equal(t, http.StatusOK, code, "%s", body)
			require.Contains(t, string(body), `"data":{"status":203}`)
		}
	}

	// The starter: one PATCH per runner with the body it marshals.
	start := `{"data":{"attributes":{"paused":false,"stopped":false},"id":"default","type":"status"}}`
	for _, r := range runners {
		code, body := operatorCall(t, http.MethodPatch, r.addr, "/v1/status", start)
		require.Equal(t, http.StatusOK, code, "%s", body)
	}

	waitExit := func(r *operatorRunner) {
		t.Helper()
		select {
		case <-r.done:
		case <-time.After(60 * time.Second):
			t.Fatalf("runner %s did not exit:\n%s", r.addr, r.stderr.String())
		}
		require.NoError(t, r.err, "runner %s exits 0:\n%s", r.addr, r.stderr.String())
		require.NotContains(t, r.stderr.String(), "not supported by Tidemark", "every flag and variable the operator sets is honoured")
	}
	if tc.plz {
		// StoppedJobs: no runner is running any more (and, so that a runner that has
		// not begun yet is not taken for a finished one, each says it ended).
		for _, r := range runners {
			promtest.Poll(t, 60*time.Second, 100*time.Millisecond, func() (bool, error) {
				if err := exited(r); err != nil {
					return false, err
				}
				_, body := operatorCall(t, http.MethodGet, r.addr, "/v1/status", "")
				var st struct {
					Data struct {
						Attributes struct {
							Status  int  `json:"status"`
							Running bool `json:"running"`
						} `json:"attributes"`
					} `json:"data"`
				}
				if err := json.Unmarshal(body, &st); err != nil {
					return false, err
				}
				return !st.Data.Attributes.Running && st.Data.Attributes.Status == 9, nil
			})
		}
	} else {
		// FinishJobs: the runner Jobs complete by themselves.
		for _, r := range runners {
			waitExit(r)
		}
	}
	served := ts.Stats()
	wantServed := maps.Clone(tc.byStatus)
	if !tc.plz {
		wantServed["204"] = tc.teardowns // each runner's own teardown() is in its run
	}
	require.Equal(t, wantServed, served.ByStatus, "setup() and teardown() requests, and every iteration's with the setup data")

	// One testid, three instances, and their requests add up to what the target served.
	one := func(v model.Value) bool { return len(v.(model.Vector)) == 1 }
	promtest.WaitForQuery(t, prom.URL, `count by (testid) (last_over_time(k6_http_reqs_total{testrun_name="`+testrun+`"}[10m]))`, 30*time.Second, one)
	promtest.WaitForQuery(t, prom.URL, `count(count by (instance_id) (last_over_time(k6_http_reqs_total{testid="`+testid+`"}[10m])))`, 30*time.Second,
		func(v model.Value) bool { return one(v) && v.(model.Vector)[0].Value == n })
	promtest.WaitForQuery(t, prom.URL, `sum(last_over_time(k6_http_reqs_total{testid="`+testid+`"}[10m]))`, 30*time.Second,
		func(v model.Value) bool { return one(v) && int64(v.(model.Vector)[0].Value) == served.Requests })
	perInstance := promtest.WaitForQuery(t, prom.URL, `sum by (instance_id) (last_over_time(k6_iterations_total{testid="`+testid+`"}[10m]))`, 30*time.Second, promtest.SeriesCount(n))
	for _, s := range perInstance.(model.Vector) {
		require.Equal(t, model.SampleValue(10), s.Value, "instance %s ran its third of 30 iterations", s.Metric["instance_id"])
	}
	if !tc.plz {
		return
	}

	// testrun.RunTeardown on the first runner: teardown(data) with the PUT data.
	code, body := operatorCall(t, http.MethodPost, runners[0].addr, "/v1/teardown", "")
	require.Equal(t, http.StatusOK, code, "%s", body)
	require.Equal(t, tc.teardowns, ts.Stats().ByStatus["204"], "teardown() ran with the setup data")
	for _, r := range runners {
		require.NoError(t, r.cmd.Process.Signal(syscall.SIGTERM))
		waitExit(r)
	}
}

// initializerScript is the script of TestOperatorInitializer's TestRun, also in
// testdata/execreqs, whose k6.json holds the maxVUs and totalDuration k6 v1.8.1 gives
// for it: warm's two VUs are held through its 30s gracefulStop, so they overlap
// spike's four.
const initializerScript = "testdata/execreqs/operator-initializer.js"

// initializerProgram is the `sh -c` program of k6-operator's initializer Job
// (pkg/resources/jobs/initializer.go, initializerShellScript), written here from its
// behaviour: fail with 127 when no k6 is on PATH; make the archive's directory; run
// archiveCmd and then `k6 inspect --execution-requirements` on the archive with their
// stderr in a log file, printed only when one fails or logged an error; so that on
// success the pod's log is inspect's JSON alone. setup runs first (the .spec.args form
// takes the archive's name and the archive command from the positional parameters).
// NOTE: the operator's log file is /tmp/k6logs and its archive /tmp/<script>.archived.tar;
// the test's are in a temporary directory, so that parallel tests do not share them.
func initializerProgram(setup, archiveRef, archiveCmd, logs string) string {
	return fmt.Sprintf(`if ! command -v k6 >/dev/null 2>&1; then
  echo 'k6 executable not found in PATH' >&2
  exit 127
fi
logs=%[4]s
%[1]s
if ! mkdir -p "$(dirname %[2]s)"; then
  exit 1
fi
if ! %[3]s 2> "${logs}"; then
  cat "${logs}"
  exit 1
fi
if ! k6 inspect --execution-requirements %[2]s 2> "${logs}"; then
  cat "${logs}"
  exit 1
fi
if grep 'level.*error' "${logs}"; then
  exit 1
fi`, setup, archiveRef, archiveCmd, logs)
}

// inspectOutput is what k6-operator reads from the initializer's log
// (pkg/cloud.InspectOutput), with its JSON names; thresholds are k6's lists of
// expressions or objects.
type inspectOutput struct {
	External struct {
		Loadimpact struct {
			Name      string `json:"name"`
			ProjectID int64  `json:"projectID"`
		} `json:"loadimpact"`
	} `json:"ext"`
	Cloud struct {
		Name      string `json:"name"`
		ProjectID int64  `json:"projectID"`
	} `json:"cloud"`
	TotalDuration string                       `json:"totalDuration"`
	MaxVUs        uint64                       `json:"maxVUs"`
	Thresholds    map[string][]json.RawMessage `json:"thresholds,omitempty"`
}

// TestOperatorInitializer plays k6-operator's initializer Job with Tidemark as the
// image: in a directory like the image's /usr/bin and /bin (the binary as k6, busybox's
// applets), busybox sh runs the initializer program in both of the operator's forms,
// .spec.arguments (one shell line, env values as "${NAME}") and .spec.args (positional
// parameters, env values expanded as kubelet expands $(NAME)). The TestRun's arguments
// reach `k6 archive` as the operator filters them (ParseCLI drops --out and its
// value). The Job exits 0, its log parses as the operator's InspectOutput with the
// maxVUs and totalDuration k6 v1.8.1 gives for the script (so a parallelism of 3 is
// accepted) and the script's thresholds; then a runner started with the operator's
// command line runs the script and `k6 run` runs the archive, both with the TestRun's
// env and tags.
func TestOperatorInitializer(t *testing.T) {
	t.Parallel()
	busybox := "/bin/busybox" // Debian's busybox-static, as the image ships it
	_, err := os.Stat(busybox)
	require.NoError(t, err, "busybox-static is one of the Makefile's DEB_PKGS")
	bin := tidemarkBinary(t, "k6")
	binDir := filepath.Dir(bin)
	for _, a := range ociimage.ShellApplets {
		require.NoError(t, os.Symlink(busybox, filepath.Join(binDir, a)))
	}
	b, err := os.ReadFile("testdata/execreqs/k6.json")
	require.NoError(t, err)
	var k6Says map[string]inspectOutput
	require.NoError(t, json.Unmarshal(b, &k6Says))
	want := k6Says[filepath.Base(initializerScript)]
	require.NotZero(t, want.MaxVUs)
	src, err := os.ReadFile(initializerScript)
	require.NoError(t, err)

	const parallelism = 3
	for _, form := range []string{"spec.arguments", "spec.args"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			ts, url := startTestTarget(t, target.Config{})
			work := t.TempDir()
			script := filepath.Join(work, "test", "init.js") // the ConfigMap at /test
			require.NoError(t, os.MkdirAll(filepath.Dir(script), 0o755))
			require.NoError(t, os.WriteFile(script, src, 0o600))
			archive := filepath.Join(work, "tmp", "init.js.archived.tar")
			logs := filepath.Join(work, "k6logs")
			testid := "init-" + strings.ReplaceAll(form, ".", "-")
			// spec.runner.env, which the initializer inherits; the container's whole env.
			env := []string{"PATH=" + binDir, "HOME=" + work, "URL=" + url, "STATUS=203"}
			// ParseCLI of the arguments `--out experimental-prometheus-rw --tag testid=…
			// --no-thresholds`: --out and its value are not for k6 archive.
			archiveArgs := []string{"--tag", "testid=" + testid, "--no-thresholds"}

			var argv []string
			if form == "spec.arguments" {
				cmdLine := fmt.Sprintf(`k6 archive %s -e URL="${URL}" -e STATUS="${STATUS}" -O %s %s`, script, archive, strings.Join(archiveArgs, " "))
				argv = []string{"sh", "-c", initializerProgram("", archive, cmdLine, logs)}
			} else {
				archiveCmd := []string{"k6", "archive", script, "-e", "URL=" + url, "-e", "STATUS=203", "-O", archive}
				archiveCmd = append(archiveCmd, archiveArgs...)
				argv = append([]string{"sh", "-c", initializerProgram("archive=\"$1\"\nshift", `"${archive}"`, `"$@"`, logs), "sh", archive}, archiveCmd...)
			}
			// The container's command, found on its PATH: busybox's sh.
			cmd := exec.Command(filepath.Join(binDir, argv[0]), argv[1:]...)
			cmd.Env, cmd.Dir = env, work
			podLog, err := cmd.CombinedOutput() // the pod's log: stdout and stderr
			require.NoError(t, err, "the initializer Job succeeds:\n%s", podLog)

			var got inspectOutput
			require.NoError(t, json.Unmarshal(podLog, &got), "the pod's log is InspectOutput's JSON alone:\n%s", podLog)
			require.Equal(t, want.MaxVUs, got.MaxVUs, "maxVUs as k6 v1.8.1 gives it")
			require.Equal(t, want.TotalDuration, got.TotalDuration, "totalDuration as k6 v1.8.1 gives it")
			_, err = model.ParseDuration(got.TotalDuration)
			require.NoError(t, err)
			require.GreaterOrEqual(t, got.MaxVUs, uint64(parallelism), "the operator refuses maxVUs < parallelism")
			require.Len(t, got.Thresholds["http_req_failed"], 1)

			// The recorded archive holds the TestRun's env and --tag.
			hdrs, data := tarEntries(t, archive)
			require.Contains(t, hdrs, "data")
			var meta struct {
				Env     map[string]string `json:"env"`
				Options struct {
					Tags map[string]string `json:"tags"`
				} `json:"options"`
			}
			require.NoError(t, json.Unmarshal(data["metadata.json"], &meta))
			require.Equal(t, map[string]string{"URL": url, "STATUS": "203"}, meta.Env)
			require.Equal(t, map[string]string{"testid": testid}, meta.Options.Tags)

			// A runner, as the operator starts it (without its REST API and pause, which
			// TestOperatorTestRun plays), runs the script; k6 run runs the archive.
			for _, what := range []string{script, archive} {
				before := ts.Stats().Requests
				run := exec.Command(bin, append([]string{"run", "--quiet", "--no-embedded-store"}, append(archiveArgs, what)...)...)
				run.Args[0] = "k6"
				run.Env, run.Dir = env, work
				out, err := run.CombinedOutput()
				require.NoError(t, err, "k6 run %s:\n%s", what, out)
				st := ts.Stats()
				require.Greater(t, st.Requests, before, "k6 run %s sends requests", what)
				require.Equal(t, st.Requests, st.ByStatus["203"], "every request with the TestRun's STATUS")
			}
		})
	}
}
