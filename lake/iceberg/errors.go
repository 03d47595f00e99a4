package iceberg

import "errors"

// Errors wrapped by this package's errors.
var (
	// ErrUnsupported: the table uses an Iceberg feature this reader does
	// not read (deletion vectors, ORC/Avro data files, v3 defaults, ...);
	// the message names the table and file.
	ErrUnsupported = errors.New("iceberg: unsupported")
	// ErrNotFound: no such table, metadata file or snapshot.
	ErrNotFound = errors.New("iceberg: not found")
	// ErrCorrupt: metadata or a delete file contradicts itself.
	ErrCorrupt = errors.New("iceberg: corrupt")
)
