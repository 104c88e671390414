package data_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// sharedScript builds a SharedArray from a JSON file and checks, in every VU, what k6
// documents for it (the checks of the corpus's shared-array.js, without its HTTP).
const sharedScript = `
import { check } from 'k6';
import { SharedArray } from 'k6/data';
import { Counter } from 'k6/metrics';

const loads = new Counter('loads');
export let built = 0;

const users = new SharedArray('users', function () {
  built++;
  return JSON.parse(open('./users.json'));
});
const again = new SharedArray('users', () => { throw new Error('not run again'); });
const numbers = new SharedArray('numbers', () => [1, 'two', true, null, [3]]);

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  const names = [];
  for (const u of users) {
    names.push(u.name);
  }
  // Elements are frozen, as k6's: an assignment throws in a module (strict code).
  const frozen = throws(() => { users[1].name = 'mallory'; }, 'read-only') || throws(() => { users[1].name = 'mallory'; }, 'Cannot assign');
  check(users, {
    'length is 4': (a) => a.length === 4,
    'index reads an element': (a) => a[0].name === 'alice' && a[3].id === 4,
    'for…of visits every element in order': () => names.join() === 'alice,bob,carol,dave',
    'an element is a frozen copy': (a) => frozen && a[1].name === 'bob' && a[1] !== a[1] && Object.isFrozen(a[0]) && Object.isFrozen(numbers[4]),
    'filter gives a plain array': (a) => {
      const even = a.filter((u) => u.id % 2 === 0);
      return Array.isArray(even) && even.length === 2 && even[1].name === 'dave';
    },
    'map, slice, forEach': (a) => {
      let n = 0;
      a.forEach(() => n++);
      return a.map((u) => u.id).join() === '1,2,3,4' && a.slice(1, 3).length === 2 && n === 4;
    },
    'JSON.stringify gives the data': (a) => JSON.parse(JSON.stringify(a))[2].name === 'carol',
    'outside the array is undefined': (a) => a[4] === undefined && a[-1] === undefined,
    'the same name gives the same data': () => again.length === 4 && again[0].name === 'alice',
    'primitives': () => numbers[0] === 1 && numbers[1] === 'two' && numbers[2] === true && numbers[3] === null && numbers[4][0] === 3,
    'the function ran once in this VU at most': () => built <= 1,
    'writing an element throws': (a) => throws(() => { a[0] = 1; }, 'SharedArray "users" is read-only'),
    'writing the length throws': (a) => throws(() => { a.length = 0; }, 'is read-only'),
    'push throws': (a) => throws(() => a.push(1), 'is read-only'),
    'not in VU code': () => throws(() => new SharedArray('late', () => [1]), 'new SharedArray must be called in the init context'),
  });
}
`

const usersJSON = `[{"id":1,"name":"alice"},{"id":2,"name":"bob"},{"id":3,"name":"carol"},{"id":4,"name":"dave"}]`

// TestSharedArray runs the documented behaviour in four VUs; the function runs once
// per process (in the options-reading init run), not once per VU.
func TestSharedArray(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": sharedScript, "users.json": usersJSON})
	vus := h.VUs(t, 4)
	for _, vu := range vus {
		require.True(t, vu.Iterate(context.Background()))
	}
	require.NoError(t, h.Runner.Err())
	checks := h.Checks()
	require.Len(t, checks, 15)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
	require.Len(t, h.Collector.Of("checks"), 4*15)
}

// TestSharedArrayErrors: the constructor's errors fail the init context (exit 107).
func TestSharedArrayErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, init, want string
	}{
		{"not an array", `new SharedArray('a', () => ({ a: 1 }));`, `new SharedArray("a"): only arrays can be made into SharedArray, got an object of class Object`},
		{"undefined", `new SharedArray('a', () => {});`, `only arrays can be made into SharedArray, got undefined`},
		{"no name", `new SharedArray('', () => []);`, `new SharedArray: empty name provided to SharedArray's constructor`},
		{"no function", `new SharedArray('a', [1]);`, `new SharedArray("a"): a function is expected as the second argument`},
		{"recursive", `new SharedArray('a', () => { new SharedArray('a', () => []); return []; });`, `new SharedArray("a"): its function constructs SharedArray "a" itself`},
		{"the function throws", `new SharedArray('a', () => { throw new Error('no data'); });`, `script.js:3:36: Error: no data`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := modulestest.WriteFiles(t, map[string]string{"script.js": "import { SharedArray } from 'k6/data';\n\n" + tc.init + "\nexport default function () {}\n"})
			_, err := modulestest.Load(t, dir+"/script.js", nil)
			require.Error(t, err)
			require.Contains(t, strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want)
		})
	}
}

// TestCorpusSharedArray runs shared-array.js as `tidemark run` does, against a stand-in
// for `tidemark target`: every threshold passes (exit 0), 8 requests, and the array's
// function logs once for the whole process (five runtimes: the options run and 4 VUs).
func TestCorpusSharedArray(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		_, _ = w.Write([]byte("ok\n"))
	}))
	t.Cleanup(srv.Close)
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logs}, nil))
	out := modulestest.RunTest(t, "../../testdata/corpus/shared-array.js", map[string]string{"BASE_URL": srv.URL}, modulestest.WithLogger(logger))
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	require.Equal(t, int64(8), requests.Load())
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 1, strings.Count(logs.String(), "shared-array: loading users.json"), logs.String())
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestSharedArrayConcurrentInit: VUs whose init contexts run at once share one array
// (run with -race).
func TestSharedArrayConcurrentInit(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import { SharedArray } from 'k6/data';
const a = new SharedArray('big', () => Array.from({ length: 1000 }, (_, i) => ({ i })));
export default function () {
  check(a, { 'every element': (a) => a.length === 1000 && a.every((x, i) => x.i === i) });
}
`})
	newVU, err := h.Runner.Prepare(h.Runner.Test().Scenarios[0], h.Env)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			vu := newVU(int64(i + 1))
			vu.Iterate(context.Background())
		})
	}
	wg.Wait()
	require.NoError(t, h.Runner.Err())
	require.Equal(t, map[string]bool{"every element": true}, h.Checks())
	require.Len(t, h.Collector.Of("checks"), 8)
}

// TestSharedArrayAbort: test.abort() in the array's function stops the run (exit 108),
// as it does anywhere in init.
func TestSharedArrayAbort(t *testing.T) {
	t.Parallel()
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
const a = new SharedArray('a', () => { exec.test.abort('no data'); return []; });
export default function () {}
`})
	_, err := modulestest.Load(t, dir+"/script.js", nil)
	require.ErrorContains(t, err, "test aborted: no data")
	require.Equal(t, 108, exitcode.Of(err))
}
