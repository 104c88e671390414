package cadvisor

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	all := func(string) (Labels, bool) { return Labels{}, true }
	for _, tc := range []struct {
		name    string
		in      Config
		wantErr string
	}{
		{name: "ok", in: Config{Subtree: "/tidemark/run-1", Labels: all}},
		{name: "empty subtree", in: Config{Labels: all}, wantErr: `cadvisor subtree is empty: want a cgroup path such as "/tidemark/run-1"`},
		{name: "relative", in: Config{Subtree: "tidemark/run-1", Labels: all}, wantErr: `cadvisor subtree "tidemark/run-1" is not absolute: want a cgroup path such as "/tidemark/run-1"`},
		{name: "unclean", in: Config{Subtree: "/tidemark/run-1/", Labels: all}, wantErr: `cadvisor subtree "/tidemark/run-1/" is not clean: want "/tidemark/run-1"`},
		{name: "root", in: Config{Subtree: "/", Labels: all}, wantErr: `cadvisor subtree is the root cgroup: want a subtree of our own such as "/tidemark/run-1"`},
		{name: "no labels", in: Config{Subtree: "/t"}, wantErr: "cadvisor labels func is nil"},
		{name: "both", in: Config{}, wantErr: "cadvisor subtree is empty: want a cgroup path such as \"/tidemark/run-1\"\ncadvisor labels func is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.in.validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"/run-1", true},
		{"/run-1/pod-a", true},
		{"/run-1/pod-a/c", true},
		{"/run-12", false},
		{"/run-1-x/pod", false},
		{"/", false},
		{"/other/run-1", false},
	} {
		require.Equal(t, tc.want, within(tc.name, "/run-1"), tc.name)
	}
}
