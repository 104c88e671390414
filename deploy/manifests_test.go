package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/scenario"
)

const kustomizeDir = "kubernetes"

// object is one Kubernetes manifest, decoded generically.
type object struct {
	file string
	raw  map[string]any
}

func (o object) kind() string { return str(o.raw, "kind") }
func (o object) name() string { return str(o.raw, "metadata", "name") }
func (o object) id() string   { return o.kind() + "/" + o.name() + " (" + o.file + ")" }

// get walks nested maps by keys.
func get(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

func str(m any, keys ...string) string {
	s, _ := get(m, keys...).(string)
	return s
}

func list(m any, keys ...string) []any {
	l, _ := get(m, keys...).([]any)
	return l
}

// decodeAll decodes every YAML document of a file.
func decodeAll(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var out []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		if doc != nil {
			out = append(out, doc)
		}
	}
	return out
}

// kustomization is the part of kustomization.yaml the tests check.
type kustomization struct {
	Namespace          string   `yaml:"namespace"`
	Resources          []string `yaml:"resources"`
	ConfigMapGenerator []struct {
		Name    string   `yaml:"name"`
		Files   []string `yaml:"files"`
		Options struct {
			DisableNameSuffixHash bool `yaml:"disableNameSuffixHash"`
		} `yaml:"options"`
	} `yaml:"configMapGenerator"`
	Images []struct {
		Name, NewName, NewTag string
	} `yaml:"images"`
}

func loadKustomization(t *testing.T) kustomization {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(kustomizeDir, "kustomization.yaml"))
	require.NoError(t, err)
	var k kustomization
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	require.NoError(t, dec.Decode(&k))
	return k
}

// manifests loads every resource of the kustomization, plus the generated ConfigMaps
// (with the generator's files as data keys).
func manifests(t *testing.T) []object {
	t.Helper()
	k := loadKustomization(t)
	var out []object
	for _, r := range k.Resources {
		for _, doc := range decodeAll(t, filepath.Join(kustomizeDir, r)) {
			out = append(out, object{file: r, raw: doc})
		}
	}
	for _, g := range k.ConfigMapGenerator {
		data := map[string]any{}
		for _, f := range g.Files {
			raw, err := os.ReadFile(filepath.Join(kustomizeDir, f))
			require.NoError(t, err)
			data[filepath.Base(f)] = string(raw)
		}
		out = append(out, object{file: "configMapGenerator", raw: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": g.Name}, "data": data,
		}})
	}
	return out
}

func byKind(objs []object, kind string) map[string]object {
	out := map[string]object{}
	for _, o := range objs {
		if o.kind() == kind {
			out[o.name()] = o
		}
	}
	return out
}

// podSpecs returns the pod templates of CronJobs, Jobs and Deployments.
func podSpecs(objs []object) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		var spec any
		switch o.kind() {
		case "CronJob":
			spec = get(o.raw, "spec", "jobTemplate", "spec", "template", "spec")
		case "Job", "Deployment":
			spec = get(o.raw, "spec", "template", "spec")
		default:
			continue
		}
		m, _ := spec.(map[string]any)
		out[o.id()] = m
	}
	return out
}

func TestKustomizationFilesExist(t *testing.T) {
	t.Parallel()
	k := loadKustomization(t)
	require.Equal(t, "loadtest", k.Namespace)
	require.NotEmpty(t, k.Resources)
	for _, r := range k.Resources {
		require.FileExists(t, filepath.Join(kustomizeDir, r))
	}
	for _, g := range k.ConfigMapGenerator {
		require.True(t, g.Options.DisableNameSuffixHash, "generated ConfigMap %s: Jobs created from the CronJob refer to it by a stable name", g.Name)
		for _, f := range g.Files {
			require.FileExists(t, filepath.Join(kustomizeDir, f))
		}
	}
	// Every YAML file in the directory is used: no forgotten manifest.
	entries, err := os.ReadDir(kustomizeDir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || e.Name() == "kustomization.yaml" || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		require.Contains(t, k.Resources, e.Name(), "%s is not listed in kustomization.yaml", e.Name())
	}
}

func TestManifestsParse(t *testing.T) {
	t.Parallel()
	objs := manifests(t)
	require.NotEmpty(t, objs)
	for _, o := range objs {
		require.NotEmpty(t, str(o.raw, "apiVersion"), o.id())
		require.NotEmpty(t, o.kind(), o.file)
		require.NotEmpty(t, o.name(), o.file)
		if o.kind() != "Namespace" {
			ns := str(o.raw, "metadata", "namespace")
			require.True(t, ns == "" || ns == "loadtest", "%s: namespace %q (kustomize sets loadtest)", o.id(), ns)
		}
	}
}

func TestNamespaceDisablesIstio(t *testing.T) {
	t.Parallel()
	ns, ok := byKind(manifests(t), "Namespace")["loadtest"]
	require.True(t, ok)
	require.Equal(t, "disabled", str(ns.raw, "metadata", "labels", "istio-injection"))
	require.Equal(t, "restricted", str(ns.raw, "metadata", "labels", "pod-security.kubernetes.io/enforce"))
}

func TestCronJobsAreSuspended(t *testing.T) {
	t.Parallel()
	cronjobs := byKind(manifests(t), "CronJob")
	require.Contains(t, cronjobs, "tidemark-load-test")
	require.Contains(t, cronjobs, "tidemark-correlate")
	require.Contains(t, cronjobs, "tidemark-load-test-indexed")
	for name, cj := range cronjobs {
		require.Equal(t, true, get(cj.raw, "spec", "suspend"), "CronJob %s must be suspended: runs start with kubectl create job --from=cronjob/%s", name, name)
		require.Equal(t, "Forbid", str(cj.raw, "spec", "concurrencyPolicy"), name)
		require.Equal(t, "Never", str(cj.raw, "spec", "jobTemplate", "spec", "template", "spec", "restartPolicy"), name)
	}
	// A load test is never retried by the Job controller.
	for _, name := range []string{"tidemark-load-test", "tidemark-load-test-indexed"} {
		require.Equal(t, 0, get(cronjobs[name].raw, "spec", "jobTemplate", "spec", "backoffLimit"), name)
		args := list(cronjobs[name].raw, "spec", "jobTemplate", "spec", "template", "spec", "containers")
		require.Len(t, args, 1, name)
		require.Equal(t, "run", list(args[0], "args")[0], name)
	}
	args := list(cronjobs["tidemark-correlate"].raw, "spec", "jobTemplate", "spec", "template", "spec", "containers")
	require.Equal(t, "correlate", list(args[0], "args")[0])
}

// TestReferencesResolve checks every name one manifest uses for another: service
// accounts, ConfigMaps (volumes, envFrom, configMapKeyRef with its key), volume mounts,
// role bindings, and the scenario file the runner is given.
func TestReferencesResolve(t *testing.T) {
	t.Parallel()
	objs := manifests(t)
	sas := byKind(objs, "ServiceAccount")
	cms := byKind(objs, "ConfigMap")
	roles := byKind(objs, "Role")
	var errs []string
	fail := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	cmKey := func(where, name, key string) {
		cm, ok := cms[name]
		if !ok {
			fail("%s: ConfigMap %q not defined", where, name)
			return
		}
		if key == "" {
			return
		}
		if _, ok := get(cm.raw, "data", key).(string); !ok {
			fail("%s: ConfigMap %q has no key %q", where, name, key)
		}
	}
	for id, spec := range podSpecs(objs) {
		require.NotNil(t, spec, id)
		if sa := str(spec, "serviceAccountName"); sa == "" {
			fail("%s: no serviceAccountName (would run as default)", id)
		} else if _, ok := sas[sa]; !ok {
			fail("%s: ServiceAccount %q not defined", id, sa)
		}
		volumes := map[string]any{}
		for _, v := range list(spec, "volumes") {
			volumes[str(v, "name")] = v
			if cm := str(v, "configMap", "name"); cm != "" {
				cmKey(id+" volume "+str(v, "name"), cm, "")
			}
		}
		for _, c := range list(spec, "containers") {
			cid := id + " container " + str(c, "name")
			mounts := map[string]string{}
			for _, m := range list(c, "volumeMounts") {
				if _, ok := volumes[str(m, "name")]; !ok {
					fail("%s: volume %q not defined", cid, str(m, "name"))
				}
				mounts[str(m, "mountPath")] = str(m, "name")
			}
			for _, e := range list(c, "envFrom") {
				if cm := str(e, "configMapRef", "name"); cm != "" {
					cmKey(cid+" envFrom", cm, "")
				}
			}
			env := map[string]bool{}
			for _, e := range list(c, "envFrom") {
				for k := range asMap(get(cms[str(e, "configMapRef", "name")].raw, "data")) {
					env[k] = true
				}
			}
			for _, e := range list(c, "env") {
				env[str(e, "name")] = true
				if ref := get(e, "valueFrom", "configMapKeyRef"); ref != nil {
					cmKey(cid+" env "+str(e, "name"), str(ref, "name"), str(ref, "key"))
				}
			}
			// $(VAR) in args must be defined, or Kubernetes passes it literally.
			for _, a := range list(c, "args") {
				s, _ := a.(string)
				for _, v := range varRefs(s) {
					if !env[v] {
						fail("%s: arg %q uses $(%s), which is not in its environment", cid, s, v)
					}
				}
				// A path argument under a ConfigMap mount must be a key of that ConfigMap.
				for mount, vol := range mounts {
					if rest, ok := strings.CutPrefix(s, mount+"/"); ok {
						cm := str(volumes[vol], "configMap", "name")
						if cm != "" {
							cmKey(cid+" arg "+s, cm, rest)
						}
					}
				}
			}
		}
	}
	for name, rb := range byKind(objs, "RoleBinding") {
		if str(rb.raw, "roleRef", "kind") == "Role" {
			if _, ok := roles[str(rb.raw, "roleRef", "name")]; !ok {
				fail("RoleBinding %s: Role %q not defined", name, str(rb.raw, "roleRef", "name"))
			}
		}
	}
	for name, r := range roles {
		for _, rule := range list(r.raw, "rules") {
			if !slices.Contains(list(rule, "resources"), any("configmaps")) {
				continue
			}
			for _, rn := range list(rule, "resourceNames") {
				cmKey("Role "+name, rn.(string), "")
			}
		}
	}
	require.Empty(t, errs)
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// varRefs returns the names of $(VAR) references in a container argument.
func varRefs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "$(")
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			return out
		}
		out = append(out, s[i+2:i+j])
		s = s[i+j:]
	}
}

// TestNoPrivilegedSettings: the jobs run as non-root with no privileges, no host access
// and no Kubernetes API token, and no ServiceAccount is granted anything.
func TestNoPrivilegedSettings(t *testing.T) {
	t.Parallel()
	objs := manifests(t)
	for id, spec := range podSpecs(objs) {
		require.Equal(t, false, get(spec, "automountServiceAccountToken"), "%s: jobs need no API token", id)
		for _, k := range []string{"hostNetwork", "hostPID", "hostIPC"} {
			require.NotEqual(t, true, get(spec, k), "%s: %s", id, k)
		}
		require.Equal(t, true, get(spec, "securityContext", "runAsNonRoot"), id)
		require.Equal(t, "RuntimeDefault", str(spec, "securityContext", "seccompProfile", "type"), id)
		for _, v := range list(spec, "volumes") {
			require.Nil(t, get(v, "hostPath"), "%s: hostPath volume %s", id, str(v, "name"))
		}
		for _, c := range append(list(spec, "containers"), list(spec, "initContainers")...) {
			sc := get(c, "securityContext")
			require.NotEqual(t, true, get(sc, "privileged"), id)
			require.Equal(t, false, get(sc, "allowPrivilegeEscalation"), id)
			require.Equal(t, true, get(sc, "readOnlyRootFilesystem"), id)
			require.Equal(t, []any{"ALL"}, list(sc, "capabilities", "drop"), id)
			require.Empty(t, list(sc, "capabilities", "add"), id)
		}
	}
	for name, sa := range byKind(objs, "ServiceAccount") {
		require.Equal(t, false, get(sa.raw, "automountServiceAccountToken"), name)
	}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		for name, rb := range byKind(objs, kind) {
			for _, s := range list(rb.raw, "subjects") {
				require.NotEqual(t, "ServiceAccount", str(s, "kind"), "%s %s grants API access to a job's ServiceAccount", kind, name)
			}
		}
	}
	require.Empty(t, byKind(objs, "ClusterRole"), "nothing here needs cluster-wide permissions")
	// The trigger Role may create Jobs and read their pods, and never deletes or escalates.
	for name, r := range byKind(objs, "Role") {
		for _, rule := range list(r.raw, "rules") {
			for _, v := range list(rule, "verbs") {
				require.Contains(t, []any{"get", "list", "watch", "create", "update", "patch"}, v, "Role %s", name)
			}
			require.NotContains(t, list(rule, "resources"), any("secrets"), "Role %s", name)
			require.NotContains(t, list(rule, "verbs"), any("*"), "Role %s", name)
		}
	}
}

// TestRunnerIsNotCPULimited: a CPU-throttled generator reports its own throttling as
// the service's latency.
func TestRunnerIsNotCPULimited(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"tidemark-load-test", "tidemark-load-test-indexed"} {
		cj := byKind(manifests(t), "CronJob")[name]
		c := list(cj.raw, "spec", "jobTemplate", "spec", "template", "spec", "containers")[0]
		require.NotEmpty(t, str(c, "resources", "requests", "cpu"), name)
		require.Empty(t, str(c, "resources", "limits", "cpu"), name)
	}
}

// TestIndexedLoadTest: the distributed load test is an Indexed Job of N pods, N being
// the same number in parallelism, completions and the --instances it passes tidemark;
// each pod's index, the run's testid (the Job's name) and N reach tidemark's flags
// through the downward API; it needs no Kubernetes API access (the start barrier goes
// through Prometheus); and apart from those it is the single-pod load test.
func TestIndexedLoadTest(t *testing.T) {
	t.Parallel()
	objs := manifests(t)
	cronjobs := byKind(objs, "CronJob")
	cj := cronjobs["tidemark-load-test-indexed"]
	job := asMap(get(cj.raw, "spec", "jobTemplate", "spec"))
	require.Equal(t, "Indexed", job["completionMode"])
	parallelism, ok := job["parallelism"].(int)
	require.True(t, ok, "parallelism is an integer: %#v", job["parallelism"])
	completions, ok := job["completions"].(int)
	require.True(t, ok, "completions is an integer: %#v", job["completions"])
	require.Greater(t, parallelism, 1)
	require.Equal(t, parallelism, completions, "every pod runs at once: the barrier waits for all completions")

	pod := asMap(get(job, "template", "spec"))
	c := list(pod, "containers")[0]
	env := map[string]any{}
	for _, e := range list(c, "env") {
		env[str(e, "name")] = e
	}
	require.Equal(t, strconv.Itoa(parallelism), str(env["TIDEMARK_INSTANCES"], "value"), "TIDEMARK_INSTANCES is parallelism and completions")
	require.Equal(t, "metadata.labels['batch.kubernetes.io/job-name']", str(env["TESTID"], "valueFrom", "fieldRef", "fieldPath"))
	require.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']",
		str(env["JOB_COMPLETION_INDEX"], "valueFrom", "fieldRef", "fieldPath"))
	var args []string
	for _, a := range list(c, "args") {
		args = append(args, a.(string))
	}
	for _, want := range []string{"--testid=$(TESTID)", "--instances=$(TIDEMARK_INSTANCES)", "--instance-index=$(JOB_COMPLETION_INDEX)"} {
		require.Contains(t, args, want)
	}
	for _, a := range args {
		require.NotContains(t, a, "--execution-segment", "the segment is derived from the index and --instances")
	}

	// The barrier reads readiness from the Prometheus the pods remote-write to: its query
	// URL is derived from a .../api/v1/write URL (cmd/tidemark queryURLOf).
	settings := byKind(objs, "ConfigMap")["tidemark-settings"]
	require.True(t, strings.HasSuffix(str(settings.raw, "data", "K6_PROMETHEUS_RW_SERVER_URL"), "/api/v1/write"))

	// Minimal RBAC: the runner's ServiceAccount, no token, and no Role bound to it
	// (TestNoPrivilegedSettings checks that no binding names a ServiceAccount).
	require.Equal(t, "tidemark-runner", str(pod, "serviceAccountName"))
	require.Equal(t, false, pod["automountServiceAccountToken"])

	// Everything else is the single-pod load test's: the two cannot drift apart.
	single := asMap(get(cronjobs["tidemark-load-test"].raw, "spec", "jobTemplate", "spec", "template", "spec"))
	sc := list(single, "containers")[0]
	for _, k := range []string{"image", "envFrom", "resources", "securityContext", "volumeMounts"} {
		require.Equal(t, get(sc, k), get(c, k), "container %s", k)
	}
	for _, k := range []string{"serviceAccountName", "restartPolicy", "securityContext", "volumes", "enableServiceLinks"} {
		require.Equal(t, single[k], pod[k], "pod %s", k)
	}
	require.Equal(t, list(sc, "args")[len(list(sc, "args"))-1], args[len(args)-1], "the same scenario")
	for _, k := range []string{"activeDeadlineSeconds", "ttlSecondsAfterFinished", "backoffLimit"} {
		require.Equal(t, get(cronjobs["tidemark-load-test"].raw, "spec", "jobTemplate", "spec", k), job[k], "job %s", k)
	}
}

// TestScenarioConfigMapLoads: the scenario in the ConfigMap is one `tidemark run` accepts.
func TestScenarioConfigMapLoads(t *testing.T) {
	t.Parallel()
	cms := byKind(manifests(t), "ConfigMap")
	settings := cms["tidemark-settings"]
	target := str(settings.raw, "data", "TARGET_URL")
	require.NotEmpty(t, target)
	for key, v := range asMap(get(cms["tidemark-scenarios"].raw, "data")) {
		test, err := scenario.Parse(key, []byte(v.(string)), map[string]string{"TARGET_URL": target})
		require.NoError(t, err, key)
		require.NotNil(t, test)
	}
}

func TestReadmeShowsTheTrigger(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, want := range []string{
		"kubectl -n loadtest create job --from=cronjob/tidemark-load-test",
		"kubectl -n loadtest create job --from=cronjob/tidemark-correlate",
		"--web.enable-remote-write-receiver",
		"tidemark dashboards generate --output.dir",
		"tidemark dashboards push",
	} {
		require.Contains(t, string(raw), want)
	}
}

// TestExporter: the exporter is one pod that only queries Prometheus (no write-back URL,
// no API token, no Role), keeps its state on a claim mounted at --storage.path, and is
// scraped through a Service and ServiceMonitor that select it by the same port.
func TestExporter(t *testing.T) {
	t.Parallel()
	objs := manifests(t)
	d, ok := byKind(objs, "Deployment")["tidemark-exporter"]
	require.True(t, ok, "Deployment tidemark-exporter")
	require.Equal(t, 1, get(d.raw, "spec", "replicas"), "one writer of the state file")
	require.Equal(t, "Recreate", str(d.raw, "spec", "strategy", "type"))
	spec := get(d.raw, "spec", "template", "spec")
	require.Equal(t, false, get(spec, "automountServiceAccountToken"))
	containers := list(spec, "containers")
	require.Len(t, containers, 1)
	c := containers[0]
	args := map[string]string{}
	for _, a := range list(c, "args") {
		s := a.(string)
		k, v, _ := strings.Cut(s, "=")
		args[k] = v
	}
	require.Contains(t, args, "exporter")
	require.Equal(t, "$(PROMETHEUS_URL)", args["--prometheus.url"])
	require.NotContains(t, args, "--write-back.url", "read-only access to Prometheus")
	mounted := ""
	for _, m := range list(c, "volumeMounts") {
		if str(m, "mountPath") == args["--storage.path"] {
			mounted = str(m, "name")
		}
	}
	require.NotEmpty(t, mounted, "--storage.path %q is a mounted volume", args["--storage.path"])
	claim := ""
	for _, v := range list(spec, "volumes") {
		if str(v, "name") == mounted {
			claim = str(v, "persistentVolumeClaim", "claimName")
		}
	}
	_, ok = byKind(objs, "PersistentVolumeClaim")[claim]
	require.True(t, ok, "the state survives the pod: PersistentVolumeClaim %q", claim)
	_, port, _ := strings.Cut(args["--web.listen-address"], ":")
	ports := list(c, "ports")
	require.Len(t, ports, 1)
	require.Equal(t, port, strconv.Itoa(get(ports[0], "containerPort").(int)))
	portName := str(ports[0], "name")

	labels := asMap(get(d.raw, "spec", "template", "metadata", "labels"))
	svc, ok := byKind(objs, "Service")["tidemark-exporter"]
	require.True(t, ok)
	for k, v := range asMap(get(svc.raw, "spec", "selector")) {
		require.Equal(t, v, labels[k], "Service selects the pod by %s", k)
	}
	svcPorts := list(svc.raw, "spec", "ports")
	require.Len(t, svcPorts, 1)
	require.Equal(t, portName, str(svcPorts[0], "targetPort"))
	sm, ok := byKind(objs, "ServiceMonitor")["tidemark-exporter"]
	require.True(t, ok)
	svcLabels := asMap(get(svc.raw, "metadata", "labels"))
	for k, v := range asMap(get(sm.raw, "spec", "selector", "matchLabels")) {
		require.Equal(t, v, svcLabels[k], "ServiceMonitor selects the Service by %s", k)
	}
	require.Equal(t, str(svcPorts[0], "name"), str(list(sm.raw, "spec", "endpoints")[0], "port"))
	require.Equal(t, "/metrics", str(list(sm.raw, "spec", "endpoints")[0], "path"))
}
