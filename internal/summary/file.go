package summary

import (
	"errors"
	"io"
	"os"
)

// WriteFile creates path and writes in to it with write (WriteExport or WriteData).
func WriteFile(path string, in Input, write func(io.Writer, Input) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, in); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}
