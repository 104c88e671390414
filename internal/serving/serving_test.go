package serving

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/stretchr/testify/require"
)

// TestRun: the server answers while ctx lasts; when ctx ends the actors are interrupted
// before the server drains, and Run returns nil; an actor's error ends Run with it.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		actErr  error
		wantErr error
	}{
		{name: "stopped by ctx"},
		{name: "actor fails", actErr: errors.New("boom"), wantErr: errors.New("boom")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }),
				ReadHeaderTimeout: ReadHeaderTimeout}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fail, interrupted := make(chan struct{}), make(chan struct{})
			act := Actor{Run: func() error { <-fail; return tc.actErr }, Interrupt: func(error) {
				close(interrupted)
				select {
				case <-fail:
				default:
					close(fail)
				}
			}}
			systemd, cfgFile := false, ""
			flags := &web.FlagConfig{WebListenAddresses: &[]string{}, WebSystemdSocket: &systemd, WebConfigFile: &cfgFile}
			done := make(chan error, 1)
			go func() { done <- Run(ctx, srv, []net.Listener{ln}, flags, promslog.NewNopLogger(), act) }()
			require.Eventually(t, func() bool {
				resp, err := http.Get("http://" + ln.Addr().String())
				if err != nil {
					return false
				}
				_ = resp.Body.Close()
				return resp.StatusCode == http.StatusOK
			}, 5*time.Second, 10*time.Millisecond)
			if tc.actErr != nil {
				close(fail)
			} else {
				cancel()
			}
			select {
			case err := <-done:
				if tc.wantErr == nil {
					require.NoError(t, err)
				} else {
					require.EqualError(t, err, tc.wantErr.Error())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return")
			}
			<-interrupted
			_, err = http.Get("http://" + ln.Addr().String())
			require.Error(t, err, "the server is shut down")
		})
	}
}
