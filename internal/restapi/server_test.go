package restapi

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

func TestListen(t *testing.T) {
	t.Parallel()
	h := NewHandler(newFakeRun("constant-vus", 1, 1, true), promslog.NewNopLogger())
	srv, err := Listen("127.0.0.1:0", h, promslog.NewNopLogger())
	require.NoError(t, err)
	addr := srv.Addr().(*net.TCPAddr)
	require.NotZero(t, addr.Port, "the bound port is reported")

	resp, err := http.Get("http://" + addr.String() + "/v1/status") //nolint:noctx // A loopback test with a live server.
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(b), `"paused":true`)

	_, err = Listen(addr.String(), h, promslog.NewNopLogger())
	require.ErrorIs(t, err, ErrListen, "the address is in use")

	require.NoError(t, srv.Stop(context.Background()))
	require.NoError(t, srv.Stop(context.Background()), "Stop is idempotent")
	_, err = net.Dial("tcp", addr.String())
	require.Error(t, err, "the listener is closed")
}

func TestDefaultAddress(t *testing.T) {
	t.Parallel()
	require.Equal(t, "localhost:6565", DefaultAddress)
}
