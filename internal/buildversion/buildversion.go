// Package buildversion says which Tidemark this is: the version the release build
// stamped (prometheus/common/version, by -ldflags), else the module version or VCS
// revision Go recorded in the binary, so that `tidemark version` never prints an empty
// version.
package buildversion

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/prometheus/common/version"
)

// Info is what `tidemark version --json` prints.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// BuildDate is the release build's stamp (yyyymmdd-hh:mm:ss, the commit's time in
	// the image), empty in a plain go build.
	BuildDate string `json:"build_date,omitempty"`
	GoVersion string `json:"go_version"`
	GoOS      string `json:"go_os"`
	GoArch    string `json:"go_arch"`
}

// Read returns the build's Info: the ldflags' version and revision, else those in
// read's build info (runtime/debug.ReadBuildInfo), else "devel".
func Read(read func() (*debug.BuildInfo, bool)) Info {
	info := Info{Version: version.Version, Commit: version.Revision, BuildDate: version.BuildDate, GoVersion: runtime.Version(), GoOS: runtime.GOOS, GoArch: runtime.GOARCH}
	if bi, ok := read(); ok && bi != nil {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && info.Commit == "" {
				info.Commit = s.Value
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	if !strings.HasPrefix(info.Version, "v") && info.Version != "devel" {
		info.Version = "v" + info.Version
	}
	if len(info.Commit) > 10 {
		info.Commit = info.Commit[:10]
	}
	return info
}

// Current is Read of this binary.
func Current() Info { return Read(debug.ReadBuildInfo) }

// String is k6's `version` line: NAME VERSION (commit/REV, GOVERSION, OS/ARCH).
func (i Info) String() string {
	commit := ""
	if i.Commit != "" {
		commit = "commit/" + i.Commit + ", "
	}
	return fmt.Sprintf("tidemark %s (%s%s, %s/%s)", i.Version, commit, i.GoVersion, i.GoOS, i.GoArch)
}

// JSON is the Info as one JSON object.
func (i Info) JSON() string {
	b, _ := json.Marshal(i) //nolint:errchkjson // a struct of strings always marshals
	return string(b)
}
