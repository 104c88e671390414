package workload

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbpool"
)

func TestParseCost(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Cost
		wantErr string
	}{
		{in: "/coupons/poll=20ms,0.2", want: Cost{Path: "/coupons/poll", CPU: 20 * time.Millisecond, Jitter: 0.2}},
		{in: "*=25ms", want: Cost{CPU: 25 * time.Millisecond}},
		{in: "=1ms,0", want: Cost{CPU: time.Millisecond}},
		{in: "/x", wantErr: `parse request cost "/x": expected PATH=CPU[,JITTER], like /orders=20ms,0.2`},
		{in: "x=1ms", wantErr: `parse request cost "x=1ms": path "x" does not start with /`},
		{in: "/x=fast", wantErr: `parse request cost "/x=fast": CPU "fast" is not a duration such as 20ms`},
		{in: "/x=1ms,2", wantErr: `parse request cost "/x=1ms,2": jitter "2" is not a fraction in [0, 1]`},
	} {
		got, err := ParseCost(tc.in)
		if tc.wantErr != "" {
			require.EqualError(t, err, tc.wantErr)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
		back, err := ParseCost(got.String())
		require.NoError(t, err)
		require.Equal(t, got, back, "String round-trips")
	}
}

// TestBurnIsCPUTime: Burn spends CPU time, not wall time (the process's CPU clock moves by
// at least what was asked).
func TestBurnIsCPUTime(t *testing.T) {
	var before, after syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &before))
	used := Burn(50 * time.Millisecond)
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &after))
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()) - time.Duration(before.Utime.Nano()+before.Stime.Nano())
	require.GreaterOrEqual(t, used, 50*time.Millisecond)
	require.GreaterOrEqual(t, cpu, 50*time.Millisecond, "the process used the CPU time")
	require.Zero(t, Burn(0))
}

func TestAppCostsAndQueue(t *testing.T) {
	app, err := New(Config{Name: "p", Costs: []Cost{{CPU: 3 * time.Millisecond}, {Path: "/a", CPU: time.Millisecond}, {Path: "/a/b", CPU: 2 * time.Millisecond}},
		Concurrency: 1, QueueMax: 1}, promslog.NewNopLogger())
	require.NoError(t, err)
	require.Equal(t, 2*time.Millisecond, app.cost("/a/b/c").CPU, "longest prefix")
	require.Equal(t, time.Millisecond, app.cost("/a/x").CPU)
	require.Equal(t, 3*time.Millisecond, app.cost("/z").CPU, "default")
	// The one slot and the one queue place are taken: the next request gets 503 at once.
	app.slots <- struct{}{}
	app.queued = 1
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/a", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, FailureQueueFull, rec.Header().Get(FailureHeader), "the failure names its reason")
	app.queued = 0
	<-app.slots
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/a", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"pod":"p"`)
	rec = httptest.NewRecorder()
	app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, ReadinessPath, nil))
	require.Equal(t, http.StatusOK, rec.Code)
}

// TestDBFailure: a failed database work names the pool's timeout, or the database.
func TestDBFailure(t *testing.T) {
	require.Equal(t, FailurePoolTimeout, dbFailure(fmt.Errorf("%w (500ms)", dbpool.ErrPoolTimeout)))
	require.Equal(t, FailureDatabase, dbFailure(errors.New("query: too many clients already")))
}
