package cadvisor

import (
	"context"
	"testing"

	info "github.com/google/cadvisor/lib/model"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// TestKubeletLabels: every cgroup gets the kubelet's six labels, empty when unknown.
func TestKubeletLabels(t *testing.T) {
	f := kubeletLabels(func(p string) (Labels, bool) {
		if p == "/run/pod-a" {
			return Labels{Namespace: "shop", Pod: "pod-a", Container: "app", Image: "img:1", Name: "c1"}, true
		}
		return Labels{Namespace: "shop", Pod: "pod-a"}, true
	})
	require.Equal(t, map[string]string{
		"id": "/run/pod-a", "name": "c1", "image": "img:1", "namespace": "shop", "pod": "pod-a", "container": "app",
	}, f(&info.ContainerInfo{ContainerReference: info.ContainerReference{Name: "/run/pod-a"}}))
	require.Equal(t, map[string]string{
		"id": "/run/pod", "name": "", "image": "", "namespace": "shop", "pod": "pod-a", "container": "",
	}, f(&info.ContainerInfo{ContainerReference: info.ContainerReference{Name: "/run/pod"}}))
}

// lifecycle is the shape of the process runtime's Containers (internal/sim/process):
// a Collector is given there as is.
type lifecycle interface {
	prometheus.Collector
	Start(ctx context.Context) error
	Stop() error
}

var _ lifecycle = (*Collector)(nil)
