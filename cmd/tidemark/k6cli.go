package main

import (
	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/testrun"
)

// addK6Flags binds k6's flags (testrun.Options.LogFlags, testrun.OptionFlags.Flags)
// on cmd, but a name cmd already has (archive's own --max-redirects).
func addK6Flags(cmd *kingpin.CmdClause, flags []testrun.Flag) {
	for _, f := range flags {
		if cmd.GetFlag(f.Name) != nil {
			continue
		}
		c := cmd.Flag(f.Name, f.Help)
		if f.Short != 0 {
			c.Short(f.Short)
		}
		switch dst := f.Dst.(type) {
		case *string:
			c.StringVar(dst)
		case *bool:
			c.BoolVar(dst)
		case *[]string:
			c.StringsVar(dst)
		}
	}
}
