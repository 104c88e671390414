//go:build integration

package dbserver_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/dbserver"
)

// childEnv makes this test binary a process that starts a server, prints its processes'
// pids and directory, and waits to be killed (TestChildDiesWithParent).
const childEnv = "TIDEMARK_DBSERVER_TEST_CHILD"

// TestChildHelper is the child's body; it does nothing in a normal run.
func TestChildHelper(_ *testing.T) {
	engine := os.Getenv(childEnv)
	if engine == "" {
		return
	}
	srv, err := dbserver.Start(context.Background(), dbserver.Config{Engine: dbserver.Engine(engine)}, promslog.NewNopLogger())
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("pids", srv.PID(), srv.Exporter().PID(), srv.Dir())
	time.Sleep(10 * time.Minute)
}

// TestChildDiesWithParent: when the process that started a server is killed (SIGKILL:
// no Close runs), the kernel's parent-death signal ends the server (PostgreSQL's
// postmaster with its backends, mariadbd) and the exporter.
func TestChildDiesWithParent(t *testing.T) {
	for _, engine := range []dbserver.Engine{dbserver.Postgres, dbserver.MariaDB} {
		t.Run(string(engine), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildHelper$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+string(engine))
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			var pids []int
			var dir string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) > 0 && f[0] == "error" {
					t.Fatal(sc.Text())
				}
				if len(f) == 4 && f[0] == "pids" {
					for _, s := range f[1:3] {
						pid, err := strconv.Atoi(s)
						require.NoError(t, err)
						pids = append(pids, pid)
					}
					dir = f[3]
					break
				}
			}
			require.Len(t, pids, 2, "the child's server did not start")
			t.Cleanup(func() { _ = os.RemoveAll(dir) }) // no Close ran: the files stay
			if engine == dbserver.Postgres {
				pids = append(pids, children(t, pids[0])...)
			}
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			for _, pid := range pids {
				require.Eventually(t, func() bool { return !alive(pid) }, 30*time.Second, 50*time.Millisecond,
					"process %d outlived its parent", pid)
			}
		})
	}
}
