package main

import (
	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/testrun"
)

// addK6LogFlags registers k6's logging flags (k6 has them on every command).
func addK6LogFlags(cmd *kingpin.CmdClause, o *testrun.Options) {
	cmd.Flag("log-format", "k6's --log-format: text (default; logrus' format), json or raw (the message alone) (K6_LOG_FORMAT).").
		Short('f').StringVar(&o.Log.Format)
	cmd.Flag("log-output", "k6's --log-output: stderr (default), stdout, none or file[=PATH][,level=LEVEL] (default file k6.log) (K6_LOG_OUTPUT).").
		StringVar(&o.Log.Output)
	cmd.Flag("console-output", "k6's --console-output: write the script's console.* lines to this file (K6_CONSOLE_OUTPUT).").
		StringVar(&o.Log.ConsoleOutput)
	cmd.Flag("no-color", "k6's --no-color: no colours in the log and the summary (K6_NO_COLOR, NO_COLOR).").BoolVar(&o.Log.NoColor)
	cmd.Flag("verbose", "k6's -v/--verbose: log at debug level, console.debug included (K6_VERBOSE).").Short('v').BoolVar(&o.Log.Verbose)
}

// addK6OptionFlags registers k6 run's flags of test-wide options, each set as its
// K6_* variable (testrun.OptionFlags).
func addK6OptionFlags(cmd *kingpin.CmdClause, f *testrun.OptionFlags) {
	cmd.Flag("config", "k6's -c/--config: a JSON file of k6 options, under the script's options (K6_CONFIG).").Short('c').StringVar(&f.ConfigFile)
	cmd.Flag("rps", "k6's --rps: at most this many requests per second over all VUs (K6_RPS).").StringVar(&f.RPS)
	if cmd.GetFlag("max-redirects") == nil { // archive has its own
		cmd.Flag("max-redirects", "k6's --max-redirects: follow at most this many redirects; default 10 (K6_MAX_REDIRECTS).").StringVar(&f.MaxRedirects)
	}
	cmd.Flag("batch", "k6's --batch: at most this many parallel requests of one http.batch; default 20 (K6_BATCH).").StringVar(&f.Batch)
	cmd.Flag("batch-per-host", "k6's --batch-per-host: at most this many parallel requests per host of one http.batch; default 6 (K6_BATCH_PER_HOST).").
		StringVar(&f.BatchPerHost)
	cmd.Flag("discard-response-bodies", "k6's --discard-response-bodies: responses have no body unless a request asks for one (K6_DISCARD_RESPONSE_BODIES).").
		BoolVar(&f.DiscardResponseBodies)
	cmd.Flag("system-tags", "k6's --system-tags: the only system tags samples carry, e.g. status,method,url (K6_SYSTEM_TAGS).").StringVar(&f.SystemTags)
	cmd.Flag("no-connection-reuse", "k6's --no-connection-reuse: a new connection for every request (K6_NO_CONNECTION_REUSE).").
		BoolVar(&f.NoConnectionReuse)
	cmd.Flag("no-vu-connection-reuse", "k6's --no-vu-connection-reuse: a VU's connections are closed between its iterations (K6_NO_VU_CONNECTION_REUSE).").
		BoolVar(&f.NoVUConnectionReuse)
	cmd.Flag("blacklist-ip", "k6's --blacklist-ip: refuse connections to this CIDR range (error code 1110). Repeatable (K6_BLACKLIST_IPS).").
		StringsVar(&f.BlacklistIPs)
	cmd.Flag("block-hostnames", "k6's --block-hostnames: refuse requests to these host names, a leading * matches any start (*.example.com: its subdomains) (error code 1111). Repeatable (K6_BLOCK_HOSTNAMES).").
		StringsVar(&f.BlockHostnames)
	cmd.Flag("min-iteration-duration", "k6's --min-iteration-duration: a shorter iteration waits out the rest (K6_MIN_ITERATION_DURATION).").
		StringVar(&f.MinIterationDuration)
	cmd.Flag("local-ips", "k6's --local-ips: source addresses handed to VUs in turn, e.g. 10.0.0.1-10.0.0.9,10.1.0.0/30 (K6_LOCAL_IPS).").
		StringVar(&f.LocalIPs)
	cmd.Flag("dns", "k6's --dns: ttl=DURATION|inf|0,select=first|random|roundRobin,policy=preferIPv4|preferIPv6|onlyIPv4|onlyIPv6|any (K6_DNS).").
		StringVar(&f.DNS)
	cmd.Flag("secret-source", "k6's --secret-source: file=PATH (KEY=VALUE lines) or mock=KEY=VALUE,…; their values are redacted from the log. Repeatable (K6_SECRET_SOURCE).").
		StringsVar(&f.SecretSources)
	cmd.Flag("scenario", "k6 v2.3's --scenario: run only the named scenarios of the script. Repeatable or comma-separated (K6_SCENARIO).").
		StringsVar(&f.Scenarios)
	cmd.Flag("features", "k6 v2's --features: feature flags (native-histograms, merge-run-tags, freeze-env, async-metric-context); accepted, they change nothing yet (K6_FEATURES).").
		StringsVar(&f.Features)
	cmd.Flag("compatibility-mode", "k6's --compatibility-mode: base, extended or experimental_enhanced; Tidemark runs every script the same way (K6_COMPATIBILITY_MODE).").
		StringVar(&f.CompatibilityMode)
	cmd.Flag("type", "k6's --type: js or archive, what the file is when its name does not say (K6_TYPE).").StringVar(&f.Type)
}
