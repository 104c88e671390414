// Package newscript writes a new test script from a template, as k6's `new` command
// does: the built-in templates minimal, protocol and browser, or a file of Go
// template text with {{.ScriptName}} and {{.ProjectID}}.
package newscript

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"text/template"
)

//go:embed templates/*.js
var templates embed.FS

// DefaultFile is the script written without a file name.
const DefaultFile = "script.js"

// Templates are the built-in templates.
func Templates() []string { return []string{"minimal", "protocol", "browser"} }

// ErrExists is a script that already exists, written only with Force.
var ErrExists = errors.New("already exists")

// Config is what Write writes.
type Config struct {
	// File is the script's path; empty is DefaultFile.
	File string
	// Template is a built-in template or the path of a template file; empty is minimal.
	Template string
	// ProjectID is the Grafana Cloud project of the script's cloud options; empty
	// leaves them out.
	ProjectID string
	// Force overwrites an existing file.
	Force bool
}

// Write writes the script cfg describes and returns its path.
func Write(cfg Config) (string, error) {
	path := cfg.File
	if path == "" {
		path = DefaultFile
	}
	if _, err := os.Stat(path); err == nil && !cfg.Force {
		return "", fmt.Errorf("%s %w; use --force to overwrite it", path, ErrExists)
	}
	text, err := templateText(cfg.Template)
	if err != nil {
		return "", err
	}
	tmpl, err := template.New("script").Parse(text)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", cfg.Template, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]string{"ScriptName": path, "ProjectID": cfg.ProjectID}); err != nil {
		return "", fmt.Errorf("template %s: %w", cfg.Template, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// templateText is a built-in template's text, or a template file's.
func templateText(name string) (string, error) {
	if name == "" {
		name = "minimal"
	}
	if slices.Contains(Templates(), name) {
		b, err := fs.ReadFile(templates, "templates/"+name+".js")
		return string(b), err
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("--template %q: not one of minimal, protocol, browser, nor a readable file: %w", name, err)
	}
	return string(b), nil
}
