package js

import (
	gojson "encoding/json"
	"io"
	"maps"
	"os"
	"runtime"
)

// PackOptions are what `tidemark archive` records over the script's own options and
// environment, as k6 archive's flags do.
type PackOptions struct {
	// Env is the __ENV recorded, over an archive's own when the script is one.
	Env map[string]string
	// ExcludeEnv records no __ENV at all.
	ExcludeEnv bool
	// Tags, when set, replace the script's tags (k6's --tag).
	Tags map[string]string
	// NoSetup, NoTeardown, UserAgent, InsecureSkipTLSVerify and MaxRedirects (when not
	// nil) set the options of those names.
	NoSetup, NoTeardown   bool
	UserAgent             string
	InsecureSkipTLSVerify bool
	MaxRedirects          *int
}

// Pack writes the k6 archive of the script r runs to w: its resolved options (scenarios
// as the run resolves them, the test-wide options of the resolved test, then o's), the
// __ENV o says, and every source the script loaded. Paths are recorded relative to the
// working directory, as k6 does.
func (r *Runner) Pack(w io.Writer, o PackOptions) error {
	env := o.Env
	if o.ExcludeEnv {
		env = map[string]string{}
	} else if arcEnv := r.ArchiveEnv(); arcEnv != nil {
		// Packing an archive again keeps its __ENV, under the new one.
		maps.Copy(arcEnv, env)
		env = arcEnv
	}
	opts, err := r.packOptions(o)
	if err != nil {
		return err
	}
	sources, err := r.Sources()
	if err != nil {
		return err
	}
	mainURL, err := r.MainURL()
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	pwd, err := FileURL(wd)
	if err != nil {
		return err
	}
	meta := ArchiveMetadata{Type: "js", Options: opts, Filename: mainURL, Pwd: pwd, Env: env,
		CompatibilityMode: "extended", K6Version: ArchiveK6Version, Goos: runtime.GOOS}
	return WriteArchive(w, meta, sources)
}

// ResolvedOptions are the options the script runs with, as k6 inspect prints them: the
// script's own (Options), under the test-wide options of the resolved test (Test).
func (r *Runner) ResolvedOptions() (map[string]any, error) {
	var opts map[string]any
	if err := gojson.Unmarshal(r.Options(), &opts); err != nil {
		return nil, err
	}
	for k, v := range r.Test().K6Options(nil) {
		if k != "scenarios" {
			opts[k] = v
		}
	}
	return opts, nil
}

// packOptions are the options an archive records: the resolved options and o's.
func (r *Runner) packOptions(o PackOptions) (gojson.RawMessage, error) {
	opts, err := r.ResolvedOptions()
	if err != nil {
		return nil, err
	}
	if len(o.Tags) > 0 {
		opts["tags"] = o.Tags // k6: --tag replaces the script's tags
	}
	if o.NoSetup {
		opts["noSetup"] = true
	}
	if o.NoTeardown {
		opts["noTeardown"] = true
	}
	if o.UserAgent != "" {
		opts["userAgent"] = o.UserAgent
	}
	if o.InsecureSkipTLSVerify {
		opts["insecureSkipTLSVerify"] = true
	}
	if o.MaxRedirects != nil {
		opts["maxRedirects"] = *o.MaxRedirects
	}
	return gojson.Marshal(opts)
}
