package cadvisor

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Labels are the kubelet's labels of one cgroup's series, besides id (the cgroup path),
// which cAdvisor sets. An empty field is served as an empty label, as the kubelet serves
// a pod's own cgroup with container="" and image="".
type Labels struct {
	Namespace string
	Pod       string
	Container string
	Image     string
	// Name is the kubelet's name label (the runtime's container id or name).
	Name string
}

// LabelsFunc maps a cgroup path under the subtree (such as "/tidemark/run-1/pod-a") to
// its labels; false means the cgroup is not reported. It is called from Collect, several
// times per cgroup and gather, possibly concurrently, so it must be cheap and safe for
// concurrent use.
type LabelsFunc func(cgroupPath string) (Labels, bool)

// Config selects the cgroups a Collector reports.
type Config struct {
	// Subtree is the cgroup path (relative to the cgroup hierarchy's root, as in
	// /proc/self/cgroup) whose descendants are reported, such as "/tidemark/run-1".
	// It may not exist yet: cgroups are picked up as they are created.
	Subtree string
	// Labels gives each cgroup's labels and decides whether it is reported. Required.
	Labels LabelsFunc
}

// validate checks the fields.
func (c *Config) validate() error {
	var errs []error
	switch {
	case c.Subtree == "":
		errs = append(errs, errors.New("cadvisor subtree is empty: want a cgroup path such as \"/tidemark/run-1\""))
	case !strings.HasPrefix(c.Subtree, "/"):
		errs = append(errs, fmt.Errorf("cadvisor subtree %q is not absolute: want a cgroup path such as \"/tidemark/run-1\"", c.Subtree))
	case path.Clean(c.Subtree) != c.Subtree:
		errs = append(errs, fmt.Errorf("cadvisor subtree %q is not clean: want %q", c.Subtree, path.Clean(c.Subtree)))
	case c.Subtree == "/":
		errs = append(errs, errors.New("cadvisor subtree is the root cgroup: want a subtree of our own such as \"/tidemark/run-1\""))
	}
	if c.Labels == nil {
		errs = append(errs, errors.New("cadvisor labels func is nil"))
	}
	return errors.Join(errs...)
}

// within reports whether cgroup name is the subtree or below it (not a sibling that
// shares its prefix, such as /run-12 beside /run-1).
func within(name, subtree string) bool {
	return name == subtree || strings.HasPrefix(name, subtree+"/")
}
