package dbserver

import (
	"context"
	"os"
	"testing"

	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"
)

func TestLookPathNamesTheDebianPackage(t *testing.T) {
	t.Parallel()
	_, err := lookPath("tidemark-no-such-program", "some-debian-package")
	require.ErrorIs(t, err, ErrMissing)
	require.EqualError(t, err, "tidemark-no-such-program: program not installed: install the Debian package some-debian-package (apt-get install some-debian-package)")
}

func TestStartRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"engine", Config{Engine: "oracle"}, `start database: unknown engine "oracle"; expected postgres or mariadb`},
		{"max connections", Config{Engine: Postgres, MaxConnections: -1}, "start database: max_connections -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Start(context.Background(), tc.cfg, promslog.NewNopLogger())
			require.EqualError(t, err, tc.wantErr)
		})
	}
	_, err := StartExporter(context.Background(), "oracle", "", promslog.NewNopLogger())
	require.EqualError(t, err, `start exporter: unknown engine "oracle"; expected postgres or mariadb`)
}

func TestWriteMyCnf(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/my.cnf"
	require.NoError(t, writeMyCnf(path, "app:s3cret@tcp(127.0.0.1:3307)/shop"))
	got, err := readFile(path)
	require.NoError(t, err)
	require.Equal(t, "[client]\nuser=app\npassword=s3cret\nhost=127.0.0.1\nport=3307\n", got)
	require.Error(t, writeMyCnf(path, "app:s3cret@tcp(127.0.0.1:3307"))
}

func TestEngineDriver(t *testing.T) {
	t.Parallel()
	require.Equal(t, "postgres", Postgres.Driver())
	require.Equal(t, "mysql", MariaDB.Driver())
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
