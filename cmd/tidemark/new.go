package main

import (
	"context"
	"fmt"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/newscript"
)

// newCmd is k6's `new [file]`: a new test script from a template.
func newCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &newscript.Config{}
	cmd := app.Command("new", "Write a new test script (k6 new): script.js unless a file is given, from the minimal, protocol or browser template, or a template file.")
	cmd.Arg("file", "The script to write; default script.js.").StringVar(&cfg.File)
	cmd.Flag("template", "minimal (default), protocol, browser, or the path of a Go template file with {{.ScriptName}} and {{.ProjectID}}.").
		Short('t').Default("minimal").StringVar(&cfg.Template)
	cmd.Flag("project-id", "The Grafana Cloud project id written in the script's cloud options.").StringVar(&cfg.ProjectID)
	cmd.Flag("force", "Overwrite an existing file.").Short('f').BoolVar(&cfg.Force)
	return cmd, func(context.Context) error {
		path, err := newscript.Write(*cfg)
		if err != nil {
			return exitcode.Invalid(err)
		}
		fmt.Fprintf(g.stdout, "New script created: %s (%s template).\n", path, cfg.Template)
		return nil
	}
}
