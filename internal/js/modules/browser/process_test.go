package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// descendants returns the pids of the processes below pid whose command line
// contains name.
func descendants(t testing.TB, pid int, name string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" {
			continue
		}
		parent[p], _ = strconv.Atoi(fields[1])
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
				if strings.Contains(string(cmd), name) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestBrowserProcessesEndWithTheRun: a run stopped while a browser VU waits in a page
// (the context canceled, as SIGTERM does) leaves no browser process behind.
func TestBrowserProcessesEndWithTheRun(t *testing.T) {
	_, base := targettest.Start(t, target.Config{})
	dir := modulestest.WriteFiles(t, map[string]string{"script.js": `import { browser } from 'k6/browser';
export const options = { scenarios: { ui: { executor: 'constant-vus', vus: 1, duration: '1m', gracefulStop: '1s', options: { browser: { type: 'chromium' } } } } };
export default async function () {
	const page = await browser.newPage();
	await page.goto(__ENV.BASE + '/news.php');
	await page.waitForTimeout(60000);
}
`})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *modulestest.Outcome, 1)
	go func() {
		done <- modulestest.RunTest(t, filepath.Join(dir, "script.js"), map[string]string{"BASE": base}, modulestest.WithContext(ctx))
	}()
	var pids []int
	require.Eventually(t, func() bool {
		pids = descendants(t, os.Getpid(), "chromium")
		return len(pids) >= 2
	}, 20*time.Second, 50*time.Millisecond, "the browser starts")
	time.Sleep(500 * time.Millisecond) // into the page's wait
	pids = descendants(t, os.Getpid(), "chromium")
	cancel()
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the run did not stop")
	}
	require.Empty(t, descendants(t, os.Getpid(), "chromium"), "no browser process below the test")
	for _, p := range pids {
		require.False(t, alive(p), "browser process %d outlived the run", p)
	}
}
