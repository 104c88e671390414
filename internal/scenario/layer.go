package scenario

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// configIgnored are the keys of a k6 config file that are not test options: the
// outputs' settings (collectors), feature flags and k6 Cloud's.
func configIgnored() []string { return []string{"collectors", "features", "ext", "cloud"} }

// k6OptionEnv maps the K6_* variables of k6's test-wide options that a script's
// options JSON takes, to their option and kind (int, bool, string, list, dns).
func k6OptionEnv() map[string][2]string {
	return map[string][2]string{
		"K6_RPS": {"rps", "int"}, "K6_MAX_REDIRECTS": {"maxRedirects", "int"}, "K6_BATCH": {"batch", "int"},
		"K6_BATCH_PER_HOST": {"batchPerHost", "int"}, "K6_DISCARD_RESPONSE_BODIES": {"discardResponseBodies", "bool"},
		"K6_NO_CONNECTION_REUSE": {"noConnectionReuse", "bool"}, "K6_NO_VU_CONNECTION_REUSE": {"noVUConnectionReuse", "bool"},
		"K6_NO_COOKIES_RESET": {"noCookiesReset", "bool"}, "K6_MIN_ITERATION_DURATION": {"minIterationDuration", "string"},
		"K6_LOCAL_IPS": {"localIPs", "string"}, "K6_BLACKLIST_IPS": {"blacklistIPs", "list"},
		"K6_BLOCK_HOSTNAMES": {"blockHostnames", "list"}, "K6_SYSTEM_TAGS": {"systemTags", "list"}, "K6_DNS": {"dns", "dns"},
		"K6_SETUP_TIMEOUT": {"setupTimeout", "string"}, "K6_TEARDOWN_TIMEOUT": {"teardownTimeout", "string"},
	}
}

// ScriptOptionEnv lists the K6_* variables LayerScriptOptions applies.
func ScriptOptionEnv() []string { return slices.Sorted(maps.Keys(k6OptionEnv())) }

// LayerScriptOptions returns a script's options JSON as k6 layers them: the options of
// the --config file (config, JSON; nil for none) under the script's, and the K6_*
// variables of ScriptOptionEnv over both (the command line's flags are set as those
// variables). The result is what test.options and k6/http read. A bad value is an
// Errors naming its variable or the config file.
func LayerScriptOptions(script, config []byte, environ map[string]string) ([]byte, error) {
	opts := map[string]any{}
	if len(script) > 0 {
		var ok bool
		if opts, ok = jsonObject(script); !ok {
			return script, nil // not an object: ParseScript says what is wrong with it
		}
	}
	if len(config) > 0 {
		cfg := map[string]any{}
		if err := json.Unmarshal(config, &cfg); err != nil {
			return nil, Errors{{Field: "--config", Msg: fmt.Sprintf("not a JSON object of k6 options: %v", err)}}
		}
		for k, v := range cfg {
			if _, set := opts[k]; !set && !slices.Contains(configIgnored(), k) {
				opts[k] = v
			}
		}
	}
	for _, k := range ScriptOptionEnv() {
		v, ok := environ[k]
		if !ok || v == "" {
			continue
		}
		spec := k6OptionEnv()[k]
		val, err := envValue(spec[1], v)
		if err != nil {
			return nil, Errors{{Field: k, Msg: fmt.Sprintf("%q: %v", v, err)}}
		}
		opts[spec[0]] = val
	}
	return json.Marshal(opts)
}

// envValue is a K6_* value as the JSON its option takes.
func envValue(kind, v string) (any, error) {
	switch kind {
	case "int":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("expected a whole number")
		}
		return n, nil
	case "bool":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("expected true or false")
		}
		return b, nil
	case "list":
		return splitList(v), nil
	case "dns":
		d, err := ParseDNS(v)
		if err != nil {
			return nil, err
		}
		ttl := d.TTL.String()
		switch {
		case d.TTL < 0:
			ttl = "inf"
		case d.TTL == 0:
			ttl = "0"
		}
		return map[string]any{"ttl": ttl, "select": d.Select, "policy": d.Policy}, nil
	}
	return v, nil
}

// jsonObject decodes b as a JSON object (null is an empty one); ok is false when b is
// not one.
func jsonObject(b []byte) (map[string]any, bool) {
	m := map[string]any{}
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, true
}
