package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/config"
	"go.yaml.in/yaml/v3"

	"github.com/tidemark/tidemark/internal/sim/hpa"
)

// Profile describes a simulated cluster: services (Deployments with an optional HPA), the
// node they run on, the HPA controller and metrics-server settings, and a database.
type Profile struct {
	// Name identifies the profile in tidemark_sim_info.
	Name string `yaml:"name"`
	// Namespace of every simulated object.
	Namespace string `yaml:"namespace"`
	// Seed makes start-up times and request costs reproducible.
	Seed uint64 `yaml:"seed"`
	// Node the pods run on.
	Node NodeSpec `yaml:"node"`
	// Controller holds kube-controller-manager's HPA flags.
	Controller ControllerSpec `yaml:"hpa_controller"`
	// MetricsServer holds metrics-server's scrape resolution.
	MetricsServer MetricsServerSpec `yaml:"metrics_server"`
	// CloudWatch holds the period at which RDS metrics are published.
	CloudWatch CloudWatchSpec `yaml:"cloudwatch"`
	// Database is optional; services with db_queries need it.
	Database *DatabaseSpec `yaml:"database"`
	// Services are the Deployments.
	Services []ServiceSpec `yaml:"services"`
}

// NodeSpec is the node every pod is scheduled on.
type NodeSpec struct {
	Name string `yaml:"name"`
	// CPUs bounds how many threads of one container run at once.
	CPUs int `yaml:"cpus"`
}

// ControllerSpec holds the HPA controller flags (--horizontal-pod-autoscaler-*).
type ControllerSpec struct {
	SyncPeriod              Duration `yaml:"sync_period"`
	Tolerance               *float64 `yaml:"tolerance"`
	CPUInitializationPeriod Duration `yaml:"cpu_initialization_period"`
	InitialReadinessDelay   Duration `yaml:"initial_readiness_delay"`
	DownscaleStabilization  Duration `yaml:"downscale_stabilization"`
}

// MetricsServerSpec is metrics-server's --metric-resolution.
type MetricsServerSpec struct {
	Resolution Duration `yaml:"resolution"`
}

// CloudWatchSpec is the period of the published RDS metrics.
type CloudWatchSpec struct {
	Period Duration `yaml:"period"`
}

// DatabaseSpec is an RDS-like instance.
type DatabaseSpec struct {
	// Engine makes the process runtime's pods run real queries on a real server:
	// "postgres" or "mariadb". Absent: the RDS model only. The in-memory simulator
	// ignores it.
	Engine string `yaml:"engine"`
	// DSN names an existing server of Engine, in the form of its Go driver (pgx's
	// postgres:// URL, go-sql-driver/mysql's user:pass@tcp(host:port)/db); empty: the
	// demo starts a throwaway one (package dbserver). A secret: never logged.
	DSN config.Secret `yaml:"dsn"`
	// Identifier is the DBInstanceIdentifier dimension.
	Identifier    string `yaml:"identifier"`
	InstanceClass string `yaml:"instance_class"`
	Region        string `yaml:"region"`
	VCPUs         int    `yaml:"vcpus"`
	// MaxConnections is the engine's max_connections; opening more fails.
	MaxConnections int `yaml:"max_connections"`
	// BaseConnections are connections held by the engine itself (rdsadmin and the like).
	BaseConnections int `yaml:"base_connections"`
	// QueryCPU is the database CPU time one query needs.
	QueryCPU Duration `yaml:"query_cpu"`
	// QueryLatency is the fixed (I/O and network) part of a query.
	QueryLatency Duration `yaml:"query_latency"`
	// ConnectTime is how long opening a pool connection takes.
	ConnectTime Duration `yaml:"connect_time"`
	// BackgroundCPUPercent is the idle engine's CPUUtilization.
	BackgroundCPUPercent float64 `yaml:"background_cpu_percent"`
	// Memory is the instance memory; FreeableMemory starts at FreeableMemory and drops
	// by MemoryPerConnection for every open connection.
	Memory              Bytes `yaml:"memory"`
	FreeableMemory      Bytes `yaml:"freeable_memory"`
	MemoryPerConnection Bytes `yaml:"memory_per_connection"`
	// Credits makes the instance burstable (db.t3 and the like); nil means not burstable.
	Credits *CreditSpec `yaml:"credits"`
}

// CreditSpec is a burstable instance's CPU credit model: one credit is one vCPU at 100%
// for one minute; credits are earned at EarnPerHour and spent by all CPU use; at a zero
// balance the instance is held to BaselinePercent of its vCPUs (standard mode).
type CreditSpec struct {
	Initial         float64 `yaml:"initial"`
	EarnPerHour     float64 `yaml:"earn_per_hour"`
	Max             float64 `yaml:"max"`
	BaselinePercent float64 `yaml:"baseline_percent"`
}

// ServiceSpec is one Deployment and the application in its single container.
type ServiceSpec struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	// Replicas is the Deployment's initial spec.replicas (default: the HPA minimum, else 1).
	Replicas int `yaml:"replicas"`
	// Listen is the loopback address of the service's HTTP endpoint (default 127.0.0.1:0).
	Listen    string        `yaml:"listen"`
	Resources ResourcesSpec `yaml:"resources"`
	// Concurrency caps the requests one pod handles at once (0: unlimited); others queue.
	Concurrency int `yaml:"concurrency"`
	// Threads is how many requests can run on CPU at once in one pod (1 for Node.js).
	Threads int `yaml:"threads"`
	// IdleCPU is the container's background CPU use (timers, GC).
	IdleCPU MilliCPU   `yaml:"idle_cpu"`
	Memory  MemorySpec `yaml:"memory"`
	Queue   QueueSpec  `yaml:"queue"`
	// Ingress is the Envoy proxy in front of the service (nil: none, requests go straight
	// to the pods).
	Ingress *IngressSpec `yaml:"ingress"`
	Request RequestSpec  `yaml:"request"`
	// Endpoints give URL paths their own cost; the longest matching path prefix wins and
	// other paths use Request.
	Endpoints []EndpointSpec `yaml:"endpoints"`
	Pool      PoolSpec       `yaml:"pool"`
	Startup   StartupSpec    `yaml:"startup"`
	// TerminationGracePeriod bounds how long a deleted pod drains.
	TerminationGracePeriod Duration `yaml:"termination_grace_period"`
	HPA                    *HPASpec `yaml:"hpa"`
}

// ResourcesSpec is the container's resources.
type ResourcesSpec struct {
	Requests ResourceList `yaml:"requests"`
	Limits   ResourceList `yaml:"limits"`
}

// ResourceList is cpu and memory.
type ResourceList struct {
	CPU    MilliCPU `yaml:"cpu"`
	Memory Bytes    `yaml:"memory"`
}

// MemorySpec is the working set: Base plus PerRequest for every request in the pod. The
// in-memory simulator OOM-kills a container whose working set reaches its memory limit.
type MemorySpec struct {
	Base       Bytes `yaml:"base"`
	PerRequest Bytes `yaml:"per_request"`
}

// QueueSpec bounds requests waiting for a pod's concurrency slot.
type QueueSpec struct {
	// Max waiting requests per pod; beyond it requests get 503 at once.
	Max int `yaml:"max"`
	// Timeout for a waiting request (0: none); expired requests get 503.
	Timeout Duration `yaml:"timeout"`
}

// IngressSpec is the Envoy proxy in front of a service, as an Istio ingress gateway or a
// calling sidecar's outbound cluster: one upstream cluster whose hosts are the service's
// Ready pods. The simulator models one such proxy per service, shared by every caller.
type IngressSpec struct {
	// MaxPending bounds the service's outstanding requests: accepted by the proxy and not
	// yet answered (in the pods' queues or in progress, but not those the proxy already
	// answered with a route timeout). A request beyond it gets 503 at once (Envoy's
	// circuit-breaker overflow, response flag UO; ReasonOverflow). It stands for Envoy's
	// cluster circuit breakers max_requests and max_pending_requests; default 1024, their
	// Envoy default.
	MaxPending int `yaml:"max_pending"`
	// RouteTimeout is Envoy's route timeout: a request not answered within it gets 504
	// from the proxy (response flag UT; ReasonRouteTimeout) while the pod keeps working
	// on it. Absent: 15s, Envoy's default; 0s disables it, as in Envoy and an Istio
	// VirtualService.
	RouteTimeout *Duration `yaml:"route_timeout"`
	// LBPolicy picks the Ready pod of each request: "round_robin" (default, Envoy's
	// default) or "least_request" (Istio's default): of two pods drawn at random, the one
	// with fewer outstanding requests from this proxy (Envoy's power of two choices).
	LBPolicy string `yaml:"lb_policy"`
}

// Load-balancing policies of IngressSpec.LBPolicy.
const (
	LBRoundRobin   = "round_robin"
	LBLeastRequest = "least_request"
)

// defaultMaxPending is Envoy's default for a cluster's max_requests and
// max_pending_requests circuit breakers.
const defaultMaxPending = 1024

// defaultRouteTimeout is Envoy's default route timeout (RouteAction.timeout).
const defaultRouteTimeout = 15 * time.Second

// RequestSpec is what one request costs.
type RequestSpec struct {
	// CPU time per request.
	CPU Duration `yaml:"cpu"`
	// CPUJitter spreads the cost uniformly by ±CPUJitter×CPU (0 to 1).
	CPUJitter float64 `yaml:"cpu_jitter"`
	// DBQueries run one after the other, each on a pool connection.
	DBQueries int `yaml:"db_queries"`
	// Calls are made synchronously after the queries, in order: "service" (its default
	// request) or "service/path" (that path's endpoint).
	Calls []string `yaml:"calls"`
	// Timeout is the server-side deadline (proxy or framework); 0 means none.
	// The caller gets 504; the pod finishes the work anyway.
	Timeout Duration `yaml:"timeout"`
}

// EndpointSpec is the cost of requests whose URL path starts with Path.
type EndpointSpec struct {
	Path    string      `yaml:"path"`
	Request RequestSpec `yaml:"request"`
}

// PoolSpec is the per-pod database connection pool (Prisma-like).
type PoolSpec struct {
	// Size is connection_limit (default 5).
	Size int `yaml:"size"`
	// Timeout is pool_timeout: how long a query waits for a connection (default 10s).
	Timeout Duration `yaml:"timeout"`
	// Warm connections are opened when the app starts.
	Warm *int `yaml:"warm"`
	// Metrics names the pool metrics a process-runtime pod exposes: "hikaricp"
	// (Micrometer), "prisma" (metrics preview) or "sql" (Go database/sql, the default).
	Metrics string `yaml:"metrics"`
}

// Database engines of DatabaseSpec.Engine and pool metric schemes of PoolSpec.Metrics.
const (
	EnginePostgres      = "postgres"
	EngineMariaDB       = "mariadb"
	PoolMetricsHikariCP = "hikaricp"
	PoolMetricsPrisma   = "prisma"
	PoolMetricsSQL      = "sql"
)

// StartupSpec is a pod's start-up: scheduling, image pull, app start, readiness probe.
type StartupSpec struct {
	Scheduling Dist           `yaml:"scheduling"`
	ImagePull  Dist           `yaml:"image_pull"`
	AppStart   Dist           `yaml:"app_start"`
	Readiness  ReadinessProbe `yaml:"readiness"`
	// WarmUp makes a pod that has just become Ready slower (zero: none).
	WarmUp WarmUpSpec `yaml:"warm_up"`
}

// WarmUpSpec is a cold start after readiness (JIT compilation, empty caches, lazily
// opened resources): the CPU cost of a request admitted t after the pod became Ready is
// multiplied by CPUFactor − (CPUFactor − 1)·t/Duration, decaying linearly to 1 at Duration.
// The pods a cluster starts with are warm.
type WarmUpSpec struct {
	// Duration of the warm-up; 0 means none.
	Duration Duration `yaml:"duration"`
	// CPUFactor is the cost multiplier at the moment the pod became Ready (1 to 100;
	// required with a duration; 0 or 1 without one).
	CPUFactor float64 `yaml:"cpu_factor"`
}

// factor returns the CPU cost multiplier of a pod that has been Ready for sinceReady.
func (w WarmUpSpec) factor(sinceReady time.Duration) float64 {
	d := w.Duration.D()
	if d <= 0 || sinceReady >= d || w.CPUFactor <= 1 {
		return 1
	}
	return w.CPUFactor - (w.CPUFactor-1)*float64(max(sinceReady, 0))/float64(d)
}

// ReadinessProbe is the container's readinessProbe.
type ReadinessProbe struct {
	InitialDelay     Duration `yaml:"initial_delay"`
	Period           Duration `yaml:"period"`
	SuccessThreshold int      `yaml:"success_threshold"`
	// FailureThreshold failed probes in a row make a Ready pod not Ready (the kubelet's
	// failureThreshold, default 3), and Timeout is one probe's timeout (timeoutSeconds,
	// default 1s). The process runtime probes for real; the in-memory simulator's probes
	// do not fail.
	FailureThreshold int      `yaml:"failure_threshold"`
	Timeout          Duration `yaml:"timeout"`
}

// HPASpec is an autoscaling/v2 HPA on cpu averageUtilization.
type HPASpec struct {
	MinReplicas          int           `yaml:"min_replicas"`
	MaxReplicas          int           `yaml:"max_replicas"`
	TargetCPUUtilization int           `yaml:"target_cpu_utilization"`
	Behavior             *BehaviorSpec `yaml:"behavior"`
}

// BehaviorSpec is spec.behavior.
type BehaviorSpec struct {
	ScaleUp   *RulesSpec `yaml:"scale_up"`
	ScaleDown *RulesSpec `yaml:"scale_down"`
}

// RulesSpec is HPAScalingRules.
type RulesSpec struct {
	StabilizationWindowSeconds *int         `yaml:"stabilization_window_seconds"`
	SelectPolicy               string       `yaml:"select_policy"`
	Policies                   []PolicySpec `yaml:"policies"`
	Tolerance                  *float64     `yaml:"tolerance"`
}

// PolicySpec is HPAScalingPolicy.
type PolicySpec struct {
	Type          string `yaml:"type"`
	Value         int    `yaml:"value"`
	PeriodSeconds int    `yaml:"period_seconds"`
}

// LoadProfile reads and validates a profile file.
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	return ParseProfile(data, path)
}

// ParseProfile decodes and validates a profile; name prefixes error messages
// ("file:line: field: what was expected").
//
// NOTE(sim): validation runs after decoding, over the decoded structs plus the YAML node
// tree for line numbers, instead of in UnmarshalYAML methods: yaml.v3's Node.Decode, which
// such methods would call, drops the decoder's KnownFields setting, so unknown fields
// inside them would pass silently.
func ParseProfile(data []byte, name string) (*Profile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, decodeError(name, err, nil)
	}
	p := &Profile{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: profile is empty", name)
		}
		return nil, decodeError(name, err, &root)
	}
	if err := p.validate(name, &root); err != nil {
		return nil, err
	}
	return p, nil
}

var (
	lineRe    = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownRe = regexp.MustCompile(`field (\S+) not found in type (\S+)`)
	valueRe   = regexp.MustCompile("(?:\"([^\"]*)\"|`([^`]*)`)")
)

// decodeError rewrites yaml errors as "file:line: field: message", naming the field found
// at that line in root and listing the fields that were expected where a field is unknown.
func decodeError(name string, err error, root *yaml.Node) error {
	var msgs []string
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var out []error
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		line := ""
		if sm := lineRe.FindStringSubmatch(m); sm != nil {
			line, m = sm[1], sm[2]
		}
		if sm := unknownRe.FindStringSubmatch(m); sm != nil {
			if fields := knownFields(sm[2]); fields != nil {
				m = fmt.Sprintf("unknown field %q (expected one of: %s)", sm[1], strings.Join(fields, ", "))
			}
		} else if n, _ := strconv.Atoi(line); n > 0 && root != nil {
			value := ""
			if vm := valueRe.FindStringSubmatch(m); vm != nil {
				value = vm[1] + vm[2]
			}
			if path := pathAt(root, n, value); path != "" {
				m = path + ": " + m
			}
		}
		if line != "" {
			out = append(out, fmt.Errorf("%s:%s: %s", name, line, m))
		} else {
			out = append(out, fmt.Errorf("%s: %s", name, m))
		}
	}
	return errors.Join(out...)
}

// knownFields lists the YAML keys of one of the profile's types, by its Go type name.
func knownFields(typeName string) []string {
	for _, v := range []any{
		Profile{}, NodeSpec{}, ControllerSpec{}, MetricsServerSpec{}, CloudWatchSpec{}, DatabaseSpec{},
		CreditSpec{}, ServiceSpec{}, ResourcesSpec{}, ResourceList{}, MemorySpec{}, QueueSpec{},
		RequestSpec{}, EndpointSpec{}, PoolSpec{}, StartupSpec{}, ReadinessProbe{}, HPASpec{}, BehaviorSpec{},
		RulesSpec{}, PolicySpec{}, IngressSpec{}, WarmUpSpec{},
	} {
		t := reflect.TypeOf(v)
		if t.String() != typeName {
			continue
		}
		var names []string
		for field := range t.Fields() {
			if tag, _, _ := strings.Cut(field.Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				names = append(names, tag)
			}
		}
		sort.Strings(names)
		return names
	}
	return nil
}

// fieldErrors collects validation errors with the line of the field they concern.
type fieldErrors struct {
	file string
	root *yaml.Node
	errs []error
}

func (f *fieldErrors) add(path string, format string, args ...any) {
	line := lineOf(f.root, path)
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		f.errs = append(f.errs, fmt.Errorf("%s:%d: %s: %s", f.file, line, path, msg))
		return
	}
	f.errs = append(f.errs, fmt.Errorf("%s: %s: %s", f.file, path, msg))
}

// lineOf finds the line of a path like "services[1].hpa.max_replicas", falling back to the
// closest existing parent.
func lineOf(root *yaml.Node, path string) int {
	n := root
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	for part := range strings.SplitSeq(path, ".") {
		key, idx := part, -1
		if open := strings.IndexByte(part, '['); open >= 0 && strings.HasSuffix(part, "]") {
			key = part[:open]
			idx, _ = strconv.Atoi(part[open+1 : len(part)-1])
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line = n.Content[i].Line
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return line
		}
		n = next
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}

// pathAt returns the path ("services[0].resources.requests.cpu") of the deepest scalar on
// line equal to value or, without a value, of the outermost scalar or flow node on line; "" if none.
func pathAt(root *yaml.Node, line int, value string) string {
	best, bestDepth := "", -1
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if n == nil || depth > 64 {
			return
		}
		if path != "" && n.Line == line {
			switch {
			case value == "" && bestDepth < 0 && (n.Kind == yaml.ScalarNode || n.Style&yaml.FlowStyle != 0):
				// No value to match: the outermost node on the line (a flow mapping).
				best, bestDepth = path, depth
			case value != "" && n.Kind == yaml.ScalarNode && n.Value == value && depth > bestDepth:
				best, bestDepth = path, depth
			}
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, depth)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				walk(n.Content[i+1], p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	}
	walk(root, "", 0)
	return best
}

var nameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validate fills defaults and checks the profile.
func (p *Profile) validate(file string, root *yaml.Node) error {
	fe := &fieldErrors{file: file, root: root}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(strings.TrimSuffix(baseName(file), ".yaml"), ".yml")
	}
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if !nameRe.MatchString(p.Namespace) {
		fe.add("namespace", "expected a DNS label (lowercase letters, digits, '-'), got %q", p.Namespace)
	}
	if p.Node.Name == "" {
		p.Node.Name = "sim-node-1"
	}
	if p.Node.CPUs == 0 {
		p.Node.CPUs = 2
	}
	if p.Node.CPUs < 0 || p.Node.CPUs > 1024 {
		fe.add("node.cpus", "expected 1 to 1024, got %d", p.Node.CPUs)
	}
	c := &p.Controller
	def := hpa.DefaultConfig
	setDur(&c.SyncPeriod, def.SyncPeriod)
	setDur(&c.CPUInitializationPeriod, def.CPUInitializationPeriod)
	setDur(&c.InitialReadinessDelay, def.InitialReadinessDelay)
	setDur(&c.DownscaleStabilization, def.DownscaleStabilization)
	if c.Tolerance == nil {
		t := def.Tolerance
		c.Tolerance = &t
	}
	if *c.Tolerance < 0 || *c.Tolerance >= 1 {
		fe.add("hpa_controller.tolerance", "expected a fraction in [0, 1), got %v", *c.Tolerance)
	}
	if c.SyncPeriod.D() < time.Second {
		fe.add("hpa_controller.sync_period", "expected at least 1s, got %s", c.SyncPeriod.D())
	}
	setDur(&p.MetricsServer.Resolution, 15*time.Second)
	if p.MetricsServer.Resolution.D() < time.Second {
		fe.add("metrics_server.resolution", "expected at least 1s, got %s", p.MetricsServer.Resolution.D())
	}
	setDur(&p.CloudWatch.Period, time.Minute)
	if p.CloudWatch.Period.D() < time.Second {
		fe.add("cloudwatch.period", "expected at least 1s, got %s", p.CloudWatch.Period.D())
	}
	if p.Database != nil {
		p.Database.validate(fe)
	}
	if len(p.Services) == 0 {
		fe.add("services", "expected at least one service")
	}
	names := map[string]int{}
	for i := range p.Services {
		s := &p.Services[i]
		at := fmt.Sprintf("services[%d]", i)
		if !nameRe.MatchString(s.Name) || len(s.Name) > 40 {
			fe.add(at+".name", "expected a DNS label of at most 40 characters, got %q", s.Name)
		}
		if j, dup := names[s.Name]; dup {
			fe.add(at+".name", "duplicate service name %q (also services[%d])", s.Name, j)
		}
		names[s.Name] = i
		s.validate(fe, at, p.Database != nil)
	}
	for i, s := range p.Services {
		check := func(at string, calls []string) {
			for j, call := range calls {
				if _, ok := names[callService(call)]; !ok {
					fe.add(fmt.Sprintf("%s.calls[%d]", at, j), "expected a service name or service/path, got %q", call)
				}
			}
		}
		check(fmt.Sprintf("services[%d].request", i), s.Request.Calls)
		for k, e := range s.Endpoints {
			check(fmt.Sprintf("services[%d].endpoints[%d].request", i, k), e.Request.Calls)
		}
	}
	if cyc := p.callCycle(); cyc != "" {
		fe.add("services", "request calls form a cycle: %s", cyc)
	}
	return errors.Join(fe.errs...)
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

func setDur(d *Duration, v time.Duration) {
	if *d == 0 {
		*d = Duration(v)
	}
}

func (d *DatabaseSpec) validate(fe *fieldErrors) {
	switch d.Engine {
	case "", EnginePostgres, EngineMariaDB:
	default:
		fe.add("database.engine", "expected %s or %s, got %q", EnginePostgres, EngineMariaDB, d.Engine)
	}
	if d.DSN != "" && d.Engine == "" {
		fe.add("database.dsn", "expected database.engine (%s or %s) with a dsn", EnginePostgres, EngineMariaDB)
	}
	if d.Identifier == "" {
		d.Identifier = "sim-db"
	}
	if d.InstanceClass == "" {
		d.InstanceClass = "db.t3.micro"
	}
	if d.Region == "" {
		d.Region = "us-east-1"
	}
	if d.VCPUs == 0 {
		d.VCPUs = 2
	}
	if d.VCPUs < 0 || d.VCPUs > 128 {
		fe.add("database.vcpus", "expected 1 to 128, got %d", d.VCPUs)
	}
	if d.MaxConnections == 0 {
		d.MaxConnections = 87
	}
	if d.MaxConnections < 0 {
		fe.add("database.max_connections", "expected a positive count, got %d", d.MaxConnections)
	}
	if d.BaseConnections < 0 {
		fe.add("database.base_connections", "expected 0 or more, got %d", d.BaseConnections)
	}
	setDur(&d.QueryCPU, time.Millisecond)
	setDur(&d.QueryLatency, 2*time.Millisecond)
	setDur(&d.ConnectTime, 20*time.Millisecond)
	if d.Memory == 0 {
		d.Memory = 1 << 30
	}
	if d.FreeableMemory == 0 {
		d.FreeableMemory = d.Memory / 2
	}
	if d.FreeableMemory > d.Memory {
		fe.add("database.freeable_memory", "expected at most memory (%d), got %d", d.Memory, d.FreeableMemory)
	}
	if d.MemoryPerConnection == 0 {
		d.MemoryPerConnection = 4 << 20
	}
	if d.BackgroundCPUPercent < 0 || d.BackgroundCPUPercent > 100 {
		fe.add("database.background_cpu_percent", "expected 0 to 100, got %v", d.BackgroundCPUPercent)
	}
	if cr := d.Credits; cr != nil {
		if cr.EarnPerHour < 0 || cr.Max < 0 || cr.Initial < 0 {
			fe.add("database.credits", "expected non-negative initial, earn_per_hour and max")
		}
		if cr.Max == 0 {
			cr.Max = 24 * cr.EarnPerHour
		}
		if cr.Initial > cr.Max {
			fe.add("database.credits.initial", "expected at most max (%v), got %v", cr.Max, cr.Initial)
		}
		if cr.BaselinePercent <= 0 || cr.BaselinePercent > 100 {
			fe.add("database.credits.baseline_percent", "expected a percentage in (0, 100], got %v", cr.BaselinePercent)
		}
	}
}

func (s *ServiceSpec) validate(fe *fieldErrors, at string, haveDB bool) {
	if s.Image == "" {
		s.Image = "registry.local/" + s.Name + ":sim"
	}
	if s.Listen != "" && !strings.HasPrefix(s.Listen, "127.0.0.1:") && !strings.HasPrefix(s.Listen, "localhost:") && !strings.HasPrefix(s.Listen, "[::1]:") {
		fe.add(at+".listen", "expected a loopback address like 127.0.0.1:8081, got %q", s.Listen)
	}
	r := &s.Resources
	if r.Requests.CPU <= 0 {
		fe.add(at+".resources.requests.cpu", "expected a positive cpu request (the HPA needs it), like 100m")
	}
	if r.Limits.CPU != 0 && r.Limits.CPU < r.Requests.CPU {
		fe.add(at+".resources.limits.cpu", "expected at least the request (%dm), got %dm", r.Requests.CPU, r.Limits.CPU)
	}
	if r.Requests.Memory == 0 {
		r.Requests.Memory = 64 << 20
	}
	if r.Limits.Memory != 0 && r.Limits.Memory < r.Requests.Memory {
		fe.add(at+".resources.limits.memory", "expected at least the request (%d), got %d", r.Requests.Memory, r.Limits.Memory)
	}
	if s.Concurrency < 0 {
		fe.add(at+".concurrency", "expected 0 (unlimited) or more, got %d", s.Concurrency)
	}
	if s.Threads == 0 {
		s.Threads = 1
	}
	if s.Threads < 0 || s.Threads > 4096 {
		fe.add(at+".threads", "expected 1 to 4096, got %d", s.Threads)
	}
	if s.Memory.Base == 0 {
		s.Memory.Base = 40 << 20
	}
	if lim := r.Limits.Memory; lim != 0 && s.Memory.Base >= lim {
		// The container would be OOM-killed as soon as it held a request.
		fe.add(at+".memory.base", "expected less than the memory limit (%d), got %d", lim, s.Memory.Base)
	}
	if s.Queue.Max == 0 {
		s.Queue.Max = 1000
	}
	if s.Queue.Max < 0 || s.Queue.Max > 1_000_000 {
		fe.add(at+".queue.max", "expected 1 to 1000000, got %d", s.Queue.Max)
	}
	if in := s.Ingress; in != nil {
		if in.MaxPending == 0 {
			in.MaxPending = defaultMaxPending
		}
		if in.MaxPending < 0 || in.MaxPending > 1_000_000 {
			fe.add(at+".ingress.max_pending", "expected 1 to 1000000, got %d", in.MaxPending)
		}
		if in.RouteTimeout == nil {
			d := Duration(defaultRouteTimeout)
			in.RouteTimeout = &d
		}
		switch in.LBPolicy {
		case "":
			in.LBPolicy = LBRoundRobin
		case LBRoundRobin, LBLeastRequest:
		default:
			fe.add(at+".ingress.lb_policy", "expected %s or %s, got %q", LBRoundRobin, LBLeastRequest, in.LBPolicy)
		}
	}
	s.Request.validate(fe, at+".request", haveDB)
	queries := s.Request.DBQueries
	for i := range s.Endpoints {
		e := &s.Endpoints[i]
		eat := fmt.Sprintf("%s.endpoints[%d]", at, i)
		if !strings.HasPrefix(e.Path, "/") {
			fe.add(eat+".path", "expected a URL path starting with /, got %q", e.Path)
		}
		e.Request.validate(fe, eat+".request", haveDB)
		queries = max(queries, e.Request.DBQueries)
	}
	if s.Pool.Size == 0 {
		s.Pool.Size = 5
	}
	if s.Pool.Size < 0 || s.Pool.Size > 10000 {
		fe.add(at+".pool.size", "expected 1 to 10000, got %d", s.Pool.Size)
	}
	setDur(&s.Pool.Timeout, 10*time.Second)
	switch s.Pool.Metrics {
	case "", PoolMetricsHikariCP, PoolMetricsPrisma, PoolMetricsSQL:
	default:
		fe.add(at+".pool.metrics", "expected %s, %s or %s, got %q", PoolMetricsHikariCP, PoolMetricsPrisma, PoolMetricsSQL, s.Pool.Metrics)
	}
	if s.Pool.Warm == nil {
		w := min(1, s.Pool.Size)
		if !haveDB || queries == 0 {
			w = 0
		}
		s.Pool.Warm = &w
	}
	if *s.Pool.Warm < 0 || *s.Pool.Warm > s.Pool.Size {
		fe.add(at+".pool.warm", "expected 0 to pool size (%d), got %d", s.Pool.Size, *s.Pool.Warm)
	}
	setDur(&s.TerminationGracePeriod, 30*time.Second)
	rp := &s.Startup.Readiness
	setDur(&rp.Period, 10*time.Second)
	if rp.SuccessThreshold == 0 {
		rp.SuccessThreshold = 1
	}
	if rp.SuccessThreshold < 0 || rp.SuccessThreshold > 100 {
		fe.add(at+".startup.readiness.success_threshold", "expected 1 to 100, got %d", rp.SuccessThreshold)
	}
	if rp.FailureThreshold == 0 {
		rp.FailureThreshold = 3
	}
	if rp.FailureThreshold < 0 || rp.FailureThreshold > 100 {
		fe.add(at+".startup.readiness.failure_threshold", "expected 1 to 100, got %d", rp.FailureThreshold)
	}
	setDur(&rp.Timeout, time.Second)
	// No warm-up is a zero duration with no factor or a factor of 1.
	switch w := s.Startup.WarmUp; {
	case w.Duration <= 0 && w.CPUFactor != 0 && w.CPUFactor != 1:
		fe.add(at+".startup.warm_up.duration", "expected a positive duration with cpu_factor, like 30s, got %s", w.Duration.D())
	case w.Duration > 0 && !(w.CPUFactor >= 1 && w.CPUFactor <= 100):
		fe.add(at+".startup.warm_up.cpu_factor", "expected a factor from 1 to 100, like 3, got %v", w.CPUFactor)
	}
	if h := s.HPA; h != nil {
		if h.MinReplicas == 0 {
			h.MinReplicas = 1
		}
		if h.MinReplicas < 0 {
			fe.add(at+".hpa.min_replicas", "expected 1 or more, got %d", h.MinReplicas)
		}
		if h.MaxReplicas < h.MinReplicas || h.MaxReplicas > 1000 {
			fe.add(at+".hpa.max_replicas", "expected min_replicas (%d) to 1000, got %d", h.MinReplicas, h.MaxReplicas)
		}
		if h.TargetCPUUtilization <= 0 || h.TargetCPUUtilization > 10000 {
			fe.add(at+".hpa.target_cpu_utilization", "expected a percentage of the cpu request like 70, got %d", h.TargetCPUUtilization)
		}
		if b := h.Behavior; b != nil {
			validateRules(fe, at+".hpa.behavior.scale_up", b.ScaleUp)
			validateRules(fe, at+".hpa.behavior.scale_down", b.ScaleDown)
		}
		if s.Replicas == 0 {
			s.Replicas = h.MinReplicas
		}
	}
	if s.Replicas == 0 {
		s.Replicas = 1
	}
	if s.Replicas < 0 || s.Replicas > 1000 {
		fe.add(at+".replicas", "expected 1 to 1000, got %d", s.Replicas)
	}
}

func (r *RequestSpec) validate(fe *fieldErrors, at string, haveDB bool) {
	if r.CPU.D() <= 0 {
		fe.add(at+".cpu", "expected a positive cpu time per request, like 10ms")
	}
	if r.CPUJitter < 0 || r.CPUJitter > 1 {
		fe.add(at+".cpu_jitter", "expected a fraction in [0, 1], got %v", r.CPUJitter)
	}
	if r.DBQueries < 0 || r.DBQueries > 1000 {
		fe.add(at+".db_queries", "expected 0 to 1000, got %d", r.DBQueries)
	}
	if r.DBQueries > 0 && !haveDB {
		fe.add(at+".db_queries", "expected a database section when a service runs queries")
	}
}

// callService is the service part of a call target ("kitchen" or "kitchen/orders").
func callService(call string) string {
	name, _, _ := strings.Cut(call, "/")
	return name
}

// callPath is the path part of a call target ("/orders"), or "/".
func callPath(call string) string {
	if _, path, ok := strings.Cut(call, "/"); ok {
		return "/" + path
	}
	return "/"
}

func validateRules(fe *fieldErrors, at string, r *RulesSpec) {
	if r == nil {
		return
	}
	if w := r.StabilizationWindowSeconds; w != nil && (*w < 0 || *w > 3600) {
		fe.add(at+".stabilization_window_seconds", "expected 0 to 3600, got %d", *w)
	}
	switch r.SelectPolicy {
	case "", "Max", "Min", "Disabled":
	default:
		fe.add(at+".select_policy", "expected Max, Min or Disabled, got %q", r.SelectPolicy)
	}
	for i, pol := range r.Policies {
		pat := fmt.Sprintf("%s.policies[%d]", at, i)
		if pol.Type != "Pods" && pol.Type != "Percent" {
			fe.add(pat+".type", "expected Pods or Percent, got %q", pol.Type)
		}
		if pol.Value <= 0 {
			fe.add(pat+".value", "expected a positive value, got %d", pol.Value)
		}
		if pol.PeriodSeconds <= 0 || pol.PeriodSeconds > 1800 {
			fe.add(pat+".period_seconds", "expected 1 to 1800, got %d", pol.PeriodSeconds)
		}
	}
	if r.Tolerance != nil && (*r.Tolerance < 0 || *r.Tolerance >= 1) {
		fe.add(at+".tolerance", "expected a fraction in [0, 1), got %v", *r.Tolerance)
	}
}

// callCycle returns a description of a cycle in the request calls, or "".
func (p *Profile) callCycle() string {
	calls := map[string][]string{}
	for _, s := range p.Services {
		for _, c := range s.Request.Calls {
			calls[s.Name] = append(calls[s.Name], callService(c))
		}
		for _, e := range s.Endpoints {
			for _, c := range e.Request.Calls {
				calls[s.Name] = append(calls[s.Name], callService(c))
			}
		}
	}
	state := map[string]int{} // 0 new, 1 visiting, 2 done
	var stack []string
	var visit func(n string) string
	visit = func(n string) string {
		switch state[n] {
		case 1:
			return strings.Join(append(stack, n), " -> ")
		case 2:
			return ""
		}
		state[n] = 1
		stack = append(stack, n)
		for _, c := range calls[n] {
			if cyc := visit(c); cyc != "" {
				return cyc
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		return ""
	}
	for _, s := range p.Services {
		if cyc := visit(s.Name); cyc != "" {
			return cyc
		}
	}
	return ""
}

// hpaSpec converts the profile's HPA to the controller's spec.
func (h *HPASpec) hpaSpec() hpa.Spec {
	s := hpa.Spec{MinReplicas: int32(h.MinReplicas), MaxReplicas: int32(h.MaxReplicas), TargetCPUUtilization: int32(h.TargetCPUUtilization)}
	if h.Behavior != nil {
		conv := func(r *RulesSpec) *hpa.Rules {
			if r == nil {
				return nil
			}
			out := &hpa.Rules{SelectPolicy: hpa.SelectPolicy(r.SelectPolicy), Tolerance: r.Tolerance}
			if r.StabilizationWindowSeconds != nil {
				w := int32(*r.StabilizationWindowSeconds)
				out.StabilizationWindowSeconds = &w
			}
			for _, p := range r.Policies {
				out.Policies = append(out.Policies, hpa.Policy{Type: hpa.PolicyType(p.Type), Value: int32(p.Value), PeriodSeconds: int32(p.PeriodSeconds)})
			}
			return out
		}
		s.Behavior = &hpa.Behavior{ScaleUp: conv(h.Behavior.ScaleUp), ScaleDown: conv(h.Behavior.ScaleDown)}
	}
	return s
}
