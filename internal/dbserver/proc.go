package dbserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// account is the operating-system user a server runs as: the package's own user
// (postgres, mysql) when we are root, since PostgreSQL refuses to run as root; nil
// runs it as ourselves.
type account struct {
	name     string
	uid, gid uint32
}

// systemAccount returns the account name when running as root, or nil otherwise.
// pkg names the Debian package that creates the account.
func systemAccount(name, pkg string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil //nolint:nilnil // not root: run as ourselves
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("look up user %s (created by the Debian package %s; apt-get install %s): %w", name, pkg, pkg, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
}

// chown gives path to the account (no-op for nil).
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Chown(path, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("chown %s to %s: %w", path, a.name, err)
	}
	return nil
}

// sysProcAttr runs a child as the account with a death signal: if this process dies
// first, the kernel sends deathSig to the child. Go sets the death signal after the
// credentials, so a change of user does not clear it (prctl(2)); the child must not
// change its user itself (mariadbd --user would), which is why servers are started
// as their account rather than asked to switch. The signal is tied to the OS thread
// that started the child; Go ends a thread only when a goroutine locked to it exits,
// which this package never does.
func (a *account) sysProcAttr(deathSig syscall.Signal) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: deathSig, Setpgid: true}
	if a != nil {
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, NoSetGroups: true}
	}
	return attr
}

// tail keeps the last bytes written to it: a child's output, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// proc is a started child process.
type proc struct {
	name   string
	cmd    *exec.Cmd
	out    *tail
	done   chan struct{}
	err    error // of Wait, set before done closes
	stopMu sync.Once
}

// startProc starts cmd, its output going to a tail.
func startProc(name string, cmd *exec.Cmd) (*proc, error) {
	p := &proc{name: name, cmd: cmd, out: &tail{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid is the child's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the child has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the child ended, with the tail of its output.
func (p *proc) exitError() error {
	return fmt.Errorf("%s exited: %v: %s", p.name, p.err, p.out.String()) //nolint:errorlint // the output is the context
}

// stop sends sig, waits up to grace, then kills the child's process group and waits.
// It is safe to call more than once.
func (p *proc) stop(sig syscall.Signal, grace time.Duration) error {
	var err error
	p.stopMu.Do(func() {
		if p.exited() {
			return
		}
		_ = p.cmd.Process.Signal(sig)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
			// The group: a server's own children too (PostgreSQL's backends).
			_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
			<-p.done
			err = fmt.Errorf("stop %s: did not end within %s of %s, killed", p.name, grace, sig)
		}
	})
	return err
}

// freePort returns a loopback port that was free a moment ago; callers retry if
// another process takes it first.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// ErrMissing is wrapped by the error of a start whose program is not installed.
var ErrMissing = errors.New("program not installed")

// lookPath finds a program, or says which Debian package provides it.
func lookPath(name, pkg string, candidates ...string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: %w: install the Debian package %s (apt-get install %s)", name, ErrMissing, pkg, pkg)
}
