package ociimage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// refNameAnnotation names an image in an OCI layout's index (skopeo's oci:DIR:NAME).
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes img as an OCI image layout in dir, its index naming it by tag (the
// part after the colon of a reference such as tidemark:v1.2.3). A dir that exists must be
// empty or an OCI layout, which is replaced.
func WriteLayout(dir string, img v1.Image, tag string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("write layout: %w", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
			return fmt.Errorf("write layout: %s is neither empty nor an OCI layout; remove it or choose another directory", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("write layout: replace %s: %w", dir, err)
		}
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout: %w", err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: tag})); err != nil {
		return fmt.Errorf("write layout: %w", err)
	}
	return nil
}

// WriteDockerArchive writes img as a `docker save` tarball tagged ref (for `docker load`,
// `crane push FILE REF` and `skopeo copy docker-archive:FILE`). A registry stores it with
// Docker media types, so its digest there is not the OCI layout's.
func WriteDockerArchive(file string, img v1.Image, ref string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("write docker archive: image reference %q: %w", ref, err)
	}
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		return fmt.Errorf("write docker archive: %w", err)
	}
	return nil
}

// WriteOCIArchive writes the OCI layout in dir as one tar file (skopeo's oci-archive:),
// entries sorted, times set to mtime and owners root, so the same layout gives the same
// bytes.
func WriteOCIArchive(file, dir string, mtime time.Time) error {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		f := File{Path: "/" + filepath.ToSlash(rel)}
		switch {
		case d.IsDir():
			f.Mode = fs.ModeDir | 0o755
		case d.Type().IsRegular():
			f.Mode = 0o644
			if f.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: not a regular file or directory", p)
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return fmt.Errorf("write OCI archive: %w", err)
	}
	b, err := Tar(files, mtime)
	if err != nil {
		return fmt.Errorf("write OCI archive: %w", err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return fmt.Errorf("write OCI archive: %w", err)
	}
	return nil
}

// Digest returns img's manifest digest, the one a registry shows for the OCI layout.
func Digest(img v1.Image) (string, error) {
	h, err := img.Digest()
	if err != nil {
		return "", fmt.Errorf("image digest: %w", err)
	}
	return h.String(), nil
}
