package workload

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// Flags are `tidemark target`'s --pod.* flags, with which the process runtime starts a
// pod. Extra flags of other parts of a pod (a database pool) go on the same command line.
type Flags struct {
	costs    []string
	cfg      Config
	listenFD int
}

// BindFlags adds the --pod.* flags to cmd (hidden: the process runtime sets them).
func BindFlags(cmd *kingpin.CmdClause) *Flags {
	f := &Flags{}
	cmd.Flag("pod.request", "Process runtime: PATH=CPU[,JITTER] CPU time per request on paths under PATH (* for any other path). Repeatable; sets pod mode.").
		Hidden().StringsVar(&f.costs)
	cmd.Flag("pod.name", "Process runtime: the pod's name.").Hidden().StringVar(&f.cfg.Name)
	cmd.Flag("pod.threads", "Process runtime: requests on CPU at once.").Hidden().Default("1").IntVar(&f.cfg.Threads)
	cmd.Flag("pod.concurrency", "Process runtime: requests in the pod at once (0: unlimited).").Hidden().IntVar(&f.cfg.Concurrency)
	cmd.Flag("pod.queue-max", "Process runtime: requests waiting for a concurrency slot (0: unlimited).").Hidden().IntVar(&f.cfg.QueueMax)
	cmd.Flag("pod.queue-timeout", "Process runtime: longest wait for a concurrency slot (0: none).").Hidden().DurationVar(&f.cfg.QueueTimeout)
	cmd.Flag("pod.app-start", "Process runtime: delay before the application answers.").Hidden().DurationVar(&f.cfg.AppStart)
	cmd.Flag("pod.cgroup", "Process runtime: the pod's cgroup, removed by the pod if its parent dies.").Hidden().StringVar(&f.cfg.Cgroup)
	cmd.Flag("pod.parent-pid", "Process runtime: the runtime's pid.").Hidden().IntVar(&f.cfg.ParentPID)
	cmd.Flag("pod.grace", "Process runtime: drain time on SIGTERM.").Hidden().Default("30s").DurationVar(&f.cfg.Grace)
	cmd.Flag("pod.listen-fd", "Process runtime: inherited listening socket (0: --web.listen-address).").Hidden().IntVar(&f.listenFD)
	return f
}

// Enabled reports whether the target runs as a process-runtime pod.
func (f *Flags) Enabled() bool { return len(f.costs) > 0 }

// Run runs the pod application on the inherited socket, or on listen, until ctx ends.
func (f *Flags) Run(ctx context.Context, listen string, logger *slog.Logger) error {
	cfg := f.cfg
	for _, s := range f.costs {
		c, err := ParseCost(s)
		if err != nil {
			return fmt.Errorf("--pod.request: %w", err)
		}
		cfg.Costs = append(cfg.Costs, c)
	}
	app, err := New(cfg, logger)
	if err != nil {
		return err
	}
	var l net.Listener
	if f.listenFD > 0 {
		file := os.NewFile(uintptr(f.listenFD), "pod-listener")
		l, err = net.FileListener(file)
		_ = file.Close()
		if err != nil {
			return fmt.Errorf("--pod.listen-fd %d: %w", f.listenFD, err)
		}
	} else if l, err = net.Listen("tcp", listen); err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	return app.Run(ctx, l)
}

// Args returns the target command line of a pod (after "target").
func Args(cfg Config, listenFD int) []string {
	args := []string{"--pod.name=" + cfg.Name, fmt.Sprintf("--pod.threads=%d", cfg.Threads),
		fmt.Sprintf("--pod.concurrency=%d", cfg.Concurrency), fmt.Sprintf("--pod.queue-max=%d", cfg.QueueMax),
		"--pod.queue-timeout=" + cfg.QueueTimeout.String(), "--pod.app-start=" + cfg.AppStart.String(),
		"--pod.cgroup=" + cfg.Cgroup, fmt.Sprintf("--pod.parent-pid=%d", cfg.ParentPID),
		"--pod.grace=" + max(cfg.Grace, time.Duration(0)).String(), fmt.Sprintf("--pod.listen-fd=%d", listenFD),
		"--grpc.listen-address="}
	for _, c := range cfg.Costs {
		args = append(args, "--pod.request="+c.String())
	}
	return args
}
