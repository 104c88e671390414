package testrun

// Flag is one of k6's command-line flags as a command binds it: its name, its short
// form (0 for none), its help and where its value goes (a *string, *bool or *[]string).
type Flag struct {
	Name  string
	Short rune
	Help  string
	Dst   any
}

// LogFlags are k6's logging flags, bound to o.Log (k6 has them on every command).
func (o *Options) LogFlags() []Flag {
	return []Flag{
		{"log-format", 'f', "k6's --log-format: text (default; logrus' format), json or raw (the message alone) (K6_LOG_FORMAT).", &o.Log.Format},
		{"log-output", 0, "k6's --log-output: stderr (default), stdout, none or file[=PATH][,level=LEVEL] (default file k6.log) (K6_LOG_OUTPUT).", &o.Log.Output},
		{"console-output", 0, "k6's --console-output: write the script's console.* lines to this file (K6_CONSOLE_OUTPUT).", &o.Log.ConsoleOutput},
		{"no-color", 0, "k6's --no-color: no colours in the log and the summary (K6_NO_COLOR, NO_COLOR).", &o.Log.NoColor},
		{"verbose", 'v', "k6's -v/--verbose: log at debug level, console.debug included (K6_VERBOSE).", &o.Log.Verbose},
	}
}

// Flags are k6 run's flags of test-wide options, each set as its K6_* variable
// (Environ), and of the run's selection (--config, --scenario, --features, …).
func (f *OptionFlags) Flags() []Flag {
	return []Flag{
		{"config", 'c', "k6's -c/--config: a JSON file of k6 options, under the script's options (K6_CONFIG).", &f.ConfigFile},
		{"rps", 0, "k6's --rps: at most this many requests per second over all VUs (K6_RPS).", &f.RPS},
		{"max-redirects", 0, "k6's --max-redirects: follow at most this many redirects; default 10 (K6_MAX_REDIRECTS).", &f.MaxRedirects},
		{"batch", 0, "k6's --batch: at most this many parallel requests of one http.batch; default 20 (K6_BATCH).", &f.Batch},
		{"batch-per-host", 0, "k6's --batch-per-host: at most this many parallel requests per host of one http.batch; default 6 (K6_BATCH_PER_HOST).", &f.BatchPerHost},
		{"discard-response-bodies", 0, "k6's --discard-response-bodies: responses have no body unless a request asks for one (K6_DISCARD_RESPONSE_BODIES).", &f.DiscardResponseBodies},
		{"system-tags", 0, "k6's --system-tags: the only system tags samples carry, e.g. status,method,url (K6_SYSTEM_TAGS).", &f.SystemTags},
		{"no-connection-reuse", 0, "k6's --no-connection-reuse: a new connection for every request (K6_NO_CONNECTION_REUSE).", &f.NoConnectionReuse},
		{"no-vu-connection-reuse", 0, "k6's --no-vu-connection-reuse: a VU's connections are closed between its iterations (K6_NO_VU_CONNECTION_REUSE).", &f.NoVUConnectionReuse},
		{"blacklist-ip", 0, "k6's --blacklist-ip: refuse connections to this CIDR range (error code 1110). Repeatable (K6_BLACKLIST_IPS).", &f.BlacklistIPs},
		{"block-hostnames", 0, "k6's --block-hostnames: refuse requests to these host names, a leading * matches any start (error code 1111). Repeatable (K6_BLOCK_HOSTNAMES).", &f.BlockHostnames},
		{"min-iteration-duration", 0, "k6's --min-iteration-duration: a shorter iteration waits out the rest (K6_MIN_ITERATION_DURATION).", &f.MinIterationDuration},
		{"local-ips", 0, "k6's --local-ips: source addresses handed to VUs in turn, e.g. 10.0.0.1-10.0.0.9,10.1.0.0/30 (K6_LOCAL_IPS).", &f.LocalIPs},
		{"dns", 0, "k6's --dns: ttl=DURATION|inf|0,select=first|random|roundRobin,policy=preferIPv4|preferIPv6|onlyIPv4|onlyIPv6|any (K6_DNS).", &f.DNS},
		{"secret-source", 0, "k6's --secret-source: file=PATH (KEY=VALUE lines) or mock=KEY=VALUE,…; their values are redacted from the log. Repeatable (K6_SECRET_SOURCE).", &f.SecretSources},
		{"scenario", 0, "k6 v2.3's --scenario: run only the named scenarios. Repeatable or comma-separated (K6_SCENARIO).", &f.Scenarios},
		{"features", 0, "k6 v2's --features (native-histograms, merge-run-tags, freeze-env, async-metric-context): native-histograms sends trends to remote write as native histograms, the others are accepted and change nothing yet (K6_FEATURES).", &f.Features},
		{"compatibility-mode", 0, "k6's --compatibility-mode: base, extended or experimental_enhanced; every script runs the same way (K6_COMPATIBILITY_MODE).", &f.CompatibilityMode},
		{"type", 0, "k6's --type: js or archive, what the file is when its name does not say (K6_TYPE).", &f.Type},
	}
}
