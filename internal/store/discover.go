package store

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DiscoveryFile is the name of the file a running server writes into its data directory
// to say where it listens. See Announce and Discover.
const DiscoveryFile = "tidemark-serve.json"

// announcement is the content of DiscoveryFile.
type announcement struct {
	// URL is the base URL of the server, e.g. http://127.0.0.1:9091. The remote-write
	// receiver is URL + "/api/v1/write".
	URL string `json:"url"`
	// PID is the process id of the server.
	PID int `json:"pid"`
	// Started is when the server started.
	Started time.Time `json:"started"`
}

// Announce writes DiscoveryFile into dir, saying that the current process serves the store
// in dir at baseURL (for example http://127.0.0.1:9091). The returned function removes the
// file; call it on shutdown.
func Announce(dir, baseURL string) (remove func() error, err error) {
	b, err := json.MarshalIndent(announcement{URL: baseURL, PID: os.Getpid(), Started: time.Now().UTC()}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", DiscoveryFile, err)
	}
	path := filepath.Join(dir, DiscoveryFile)
	// Write then rename, so that a reader never sees half a file.
	tmp, err := os.CreateTemp(dir, DiscoveryFile+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	pid := os.Getpid()
	return func() error {
		// Remove only our own announcement, never a newer server's.
		a, err := readAnnouncement(path)
		if err != nil || a.PID != pid {
			// Gone, or not ours: we write ours whole (rename), so an unreadable one is
			// another writer's and nothing of ours is left to remove.
			return nil //nolint:nilerr // an unreadable announcement is not ours to remove.
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		return nil
	}, nil
}

// Discover looks for a live server holding the store in dir. It returns the server's base
// URL and true when DiscoveryFile names a running process that answers HTTP at its URL.
// A missing file, or one left behind by a dead server, gives ok false and no error. Remote
// write to url + "/api/v1/write".
func Discover(ctx context.Context, dir string) (url string, ok bool, err error) {
	path := filepath.Join(dir, DiscoveryFile)
	a, err := readAnnouncement(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if a.PID <= 0 || !processAlive(a.PID) {
		return "", false, nil
	}
	if !answers(ctx, a.URL) {
		return "", false, nil
	}
	return a.URL, true, nil
}

func readAnnouncement(path string) (announcement, error) {
	var a announcement
	b, err := os.ReadFile(path)
	if err != nil {
		return a, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("parse %s: %w", path, err)
	}
	if a.URL == "" {
		return a, fmt.Errorf("parse %s: no url", path)
	}
	return a, nil
}

// processAlive reports whether a process with pid exists (signal 0 probes without
// delivering anything; EPERM means it exists but belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// discoverProbeTimeout bounds the liveness probe of Discover; a local server answers in
// milliseconds.
const discoverProbeTimeout = 2 * time.Second

// answers reports whether an HTTP server answers at baseURL. Any HTTP status counts: a
// server behind basic auth answers 401 and is still alive.
func answers(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, discoverProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/-/ready", nil)
	if err != nil {
		return false
	}
	client := &http.Client{Transport: &http.Transport{
		// Liveness only: no data is exchanged, and a local server's certificate is often
		// self-signed.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // liveness probe only.
	}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return true
}
