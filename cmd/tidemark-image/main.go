// Command tidemark-image builds Tidemark's OCI image from a static binary without a
// container daemon (`make image`): an OCI layout directory, an OCI archive and a docker
// archive, and prints the image's digest. The same commit gives the same digest.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/ociimage"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Names of the outputs inside --out.dir.
const (
	layoutDir     = "oci"
	ociArchive    = "tidemark-oci.tar"
	dockerArchive = "tidemark.tar"
)

// run parses args, builds and writes the image and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	app := kingpin.New("tidemark-image", "Build Tidemark's OCI image from a static binary, without a container daemon.")
	app.HelpFlag.Short('h')
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	terminated, termCode := false, 0
	app.Terminate(func(code int) { terminated, termCode = true, code })
	var (
		cfg    ociimage.Config
		epoch  int64
		ref    string
		outDir string
	)
	app.Flag("binary", "Static tidemark binary (CGO_ENABLED=0) to install as "+ociimage.BinaryPath+" and "+ociimage.K6Path+".").Required().StringVar(&cfg.Binary)
	app.Flag("ca-certs", "CA bundle to install as "+ociimage.CACertsPath+" (Debian package ca-certificates).").Default("/etc/ssl/certs/ca-certificates.crt").StringVar(&cfg.CACerts)
	app.Flag("busybox", "Static busybox to install as "+ociimage.BusyboxPath+" with sh and the applets k6-operator's initializer runs (Debian package busybox-static); empty for an image without a shell, where k6-operator's initializer (sh -c) cannot run.").Default("/bin/busybox").StringVar(&cfg.Busybox)
	app.Flag("arch", "GOARCH the binary was built for.").Default(runtime.GOARCH).StringVar(&cfg.Arch)
	app.Flag("created", "Creation time and every file's time, as Unix seconds: the commit time (git log -1 --format=%ct).").Envar("SOURCE_DATE_EPOCH").Required().Int64Var(&epoch)
	app.Flag("image.version", "Value of the org.opencontainers.image.version label (kingpin reserves --version).").Required().StringVar(&cfg.Version)
	app.Flag("image.revision", "Value of the org.opencontainers.image.revision label (the full commit).").Required().StringVar(&cfg.Revision)
	app.Flag("image.source", "Value of the org.opencontainers.image.source label.").Default("https://github.com/tidemark/tidemark").StringVar(&cfg.Source)
	app.Flag("tag", "Image reference stored in the docker archive and, after the colon, in the layout's index.").Default("tidemark:latest").StringVar(&ref)
	app.Flag("out.dir", "Directory for "+layoutDir+"/ (OCI layout), "+ociArchive+" (OCI archive) and "+dockerArchive+" (docker archive).").Default("bin/image").StringVar(&outDir)
	if _, err := app.Parse(args); terminated {
		return termCode
	} else if err != nil {
		fmt.Fprintf(stderr, "tidemark-image: error: %v, try --help\n", err)
		return exitcode.InvalidConfig
	}
	cfg.Created = time.Unix(epoch, 0)
	digest, err := build(cfg, ref, outDir)
	if err != nil {
		fmt.Fprintf(stderr, "tidemark-image: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", digest)
	return exitcode.OK
}

// build writes the three outputs of cfg into outDir and returns the image digest.
func build(cfg ociimage.Config, ref, outDir string) (string, error) {
	if err := ociimage.CheckExecutable(cfg.Binary, cfg.Arch); err != nil {
		return "", err
	}
	if cfg.Busybox != "" {
		if err := ociimage.CheckExecutable(cfg.Busybox, cfg.Arch); err != nil {
			return "", fmt.Errorf("%w (--busybox= builds an image without a shell)", err)
		}
	}
	tag := "latest"
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		tag = ref[i+1:]
	}
	img, err := ociimage.Build(cfg)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", fmt.Errorf("create output directory: %w", err)
	}
	dir := filepath.Join(outDir, layoutDir)
	if err := ociimage.WriteLayout(dir, img, tag); err != nil {
		return "", err
	}
	if err := ociimage.WriteOCIArchive(filepath.Join(outDir, ociArchive), dir, cfg.Created); err != nil {
		return "", err
	}
	if err := ociimage.WriteDockerArchive(filepath.Join(outDir, dockerArchive), img, ref); err != nil {
		return "", err
	}
	return ociimage.Digest(img)
}
