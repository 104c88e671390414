package js

import (
	gojson "encoding/json"

	"github.com/tidemark/tidemark/internal/scenario"
)

// resolvedOptions is k6's test.options: the script's options (JSON) with its
// scenarios as the run resolved them (shortcuts and K6_* variables turned into
// scenarios, defaults applied), and the shortcuts they replaced removed.
func resolvedOptions(script []byte, s *scenario.Script) ([]byte, error) {
	opts := map[string]any{}
	if err := gojson.Unmarshal(script, &opts); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = map[string]any{}
	}
	for _, k := range []string{"vus", "iterations", "duration", "stages"} {
		delete(opts, k)
	}
	scens := map[string]any{}
	for _, sc := range s.Test.Scenarios {
		scens[sc.Name] = sc.K6Options(s.ExecOf(sc.Name))
	}
	opts["scenarios"] = scens
	if s.HTTP.Throw {
		opts["throw"] = true // K6_THROW or --throw, for k6/http
	}
	return gojson.Marshal(opts)
}

// HTTPDebug returns the script's httpDebug option, the option form of --http-debug:
// "" off, "full" for the bodies too, any other text for the heads only. K6_HTTP_DEBUG
// and --http-debug win over it.
func (r *Runner) HTTPDebug() string { return r.script.HTTP.Debug }
