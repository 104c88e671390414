package recorder

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResponse(t *testing.T) {
	r := New()
	require.Equal(t, http.StatusOK, r.Status(), "no status written is 200")
	http.Error(r, "nope", http.StatusTeapot)
	r.WriteHeader(http.StatusOK)
	require.Equal(t, http.StatusTeapot, r.Status(), "the first status counts")
	require.Equal(t, "nope\n", string(r.Body()))
	require.Equal(t, "text/plain; charset=utf-8", r.Header().Get("Content-Type"))

	w := New()
	_, err := w.Write([]byte("a"))
	require.NoError(t, err)
	w.WriteHeader(http.StatusNotFound)
	require.Equal(t, http.StatusOK, w.Status(), "a write before WriteHeader is 200")
}
