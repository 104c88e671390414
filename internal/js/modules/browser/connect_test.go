package browser_test

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// startChromium runs a headless Chromium with remote debugging on a free port until
// the test ends and returns its DevTools WebSocket URL and its pid.
func startChromium(t *testing.T) (string, int) {
	t.Helper()
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, ws, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
				found <- strings.TrimSpace(ws)
			}
		}
	}()
	select {
	case ws := <-found:
		return ws, cmd.Process.Pid
	case <-time.After(20 * time.Second):
		t.Fatal("chromium did not print its DevTools URL")
		return "", 0
	}
}

// TestBrowserConnectOverCDP: chromium.connectOverCDP attaches to a running browser,
// opens a page in it, and close disconnects without stopping that browser.
func TestBrowserConnectOverCDP(t *testing.T) {
	t.Parallel()
	_, base := targettest.Start(t, target.Config{})
	ws, pid := startChromium(t)
	files := script(base, `
import { chromium } from 'k6/browser';
export default async function () {
	const remote = await chromium.connectOverCDP('`+ws+`');
	check(remote.isConnected(), { 'connected': (v) => v === true });
	check(remote.version(), { 'version': (v) => /^\d+\./.test(v) });
	const page = await remote.newPage();
	await page.goto(BASE + '/news.php');
	check(await page.title(), { 'page in the connected browser': (t) => t === 'In the news' });
	check(browser.context(), { 'the VU own browser untouched': (c) => c === null });
	await remote.close();
	check(remote.isConnected(), { 'close disconnects': (v) => v === false });
}
`)
	h, ok, logs := iterate(t, files)
	require.True(t, ok, logs)
	h.RequireChecks(t, 5)
	require.NoError(t, syscall.Kill(pid, 0), "the browser still runs")
	require.NotContains(t, logs, "Browser launched", "no browser of the VU's own was launched")
}
