package scan_test

import (
	"github.com/inlet-db/inlet/catalog/fluss/record"
	"github.com/inlet-db/inlet/typemap"
)

func columnsOf(tableJSON []byte) ([]typemap.Column, error) {
	d, err := record.ParseTableDescriptor(tableJSON)
	if err != nil {
		return nil, err
	}
	return d.Schema.TypeColumns(), nil
}
