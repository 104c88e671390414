package sitetest_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	gws "github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/sitetest"
)

// TestWebSocketSites: echo.websocket.org (ws:// and wss://, through the proxy) echoes,
// and QuickPizza's /ws (direct, as its scripts reach it) relays a message to every
// client, the sender too.
func TestWebSocketSites(t *testing.T) {
	t.Parallel()
	s := sitetest.Start(t, t.TempDir())
	pem, err := os.ReadFile(s.CAFile)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(pem))
	proxy, err := url.Parse(s.URL)
	require.NoError(t, err)
	d := &gws.Dialer{Proxy: http.ProxyURL(proxy), TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
	for _, u := range []string{"ws://echo.websocket.org", "wss://echo.websocket.org/"} {
		c, res, err := d.Dial(u, nil)
		require.NoError(t, err, u)
		require.Equal(t, http.StatusSwitchingProtocols, res.StatusCode)
		require.NoError(t, c.WriteMessage(gws.TextMessage, []byte("hi "+u)))
		_, got, err := c.ReadMessage()
		require.NoError(t, err)
		require.Equal(t, "hi "+u, string(got))
		require.NoError(t, c.Close())
	}

	room := "ws" + strings.TrimPrefix(s.URL, "http") + "/ws"
	a, _, err := gws.DefaultDialer.Dial(room, nil)
	require.NoError(t, err)
	defer a.Close()
	b, _, err := gws.DefaultDialer.Dial(room, nil)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, a.WriteMessage(gws.TextMessage, []byte("order")))
	for _, c := range []*gws.Conn{a, b} {
		_, got, err := c.ReadMessage()
		require.NoError(t, err)
		require.Equal(t, "order", string(got))
	}
}
