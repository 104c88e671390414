package target_test

import (
	"bytes"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// TestPageWaitsForTheBackend: /page embeds /page/image with its backend, and the image
// is answered only after the backend, green after a 2xx and red otherwise; a backend
// that is not an http URL is refused.
func TestPageWaitsForTheBackend(t *testing.T) {
	t.Parallel()
	backend, beURL := targettest.Start(t, target.Config{})
	_, base := targettest.Start(t, target.Config{})
	get := func(t *testing.T, u string) (*http.Response, []byte) {
		t.Helper()
		res, err := http.Get(u) //nolint:noctx // a test's short request
		require.NoError(t, err)
		defer func() { _ = res.Body.Close() }()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, b
	}
	slow := beURL + "/orders/1?delay=300ms"
	res, body := get(t, base+target.PagePath+"?"+url.Values{"backend": {slow}}.Encode())
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	require.Contains(t, string(body), `<img id="status" alt="order status" width="800" height="450" src="/page/image?backend=`+
		url.QueryEscape(slow)+`">`)
	require.Zero(t, backend.Stats().Requests, "the page itself does not wait for the backend")

	for _, tc := range []struct {
		name, backend string
		wantRed       bool
		wantWait      time.Duration
	}{
		{"no backend", "", false, 0},
		{"slow backend", slow, false, 300 * time.Millisecond},
		{"failing backend", beURL + "/orders/2?status=503", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, body := get(t, base+target.PageImagePath+"?"+url.Values{"backend": {tc.backend}}.Encode())
			require.GreaterOrEqual(t, time.Since(start), tc.wantWait)
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Equal(t, "image/png", res.Header.Get("Content-Type"))
			img, err := png.Decode(bytes.NewReader(body))
			require.NoError(t, err)
			require.Equal(t, 800, img.Bounds().Dx())
			require.Equal(t, 450, img.Bounds().Dy())
			r, g, _, _ := img.At(10, 10).RGBA()
			require.Equal(t, tc.wantRed, r > g, "red means the backend failed")
		})
	}
	require.Equal(t, int64(2), backend.Stats().Requests, "one backend request per image that names it")

	res, body = get(t, base+target.PageImagePath+"?backend=file:///etc/passwd")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Contains(t, string(body), `backend "file:///etc/passwd": expected an http or https URL`)
}
