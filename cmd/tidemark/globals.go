package main

import (
	"io"
	"log/slog"
	"os"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
)

// globals holds what every subcommand shares: output streams and logging flags.
type globals struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	logConfig      *promslog.Config
}

func newGlobals(app *kingpin.Application, stdout, stderr io.Writer) *globals {
	g := &globals{stdin: os.Stdin, stdout: stdout, stderr: stderr, logConfig: &promslog.Config{Writer: stderr}}
	promslogflag.AddFlags(app, g.logConfig)
	return g
}

// logger returns the process logger configured by --log.level and --log.format.
// Call it only after the command line has been parsed.
func (g *globals) logger() *slog.Logger {
	return promslog.New(g.logConfig)
}
