package writer

import (
	"strings"
	"testing"
)

// TestORCOptions: Paimon's codec choice (file.compression, zstd by default;
// orc.compress is overridden by it) and the size options, with errors
// naming the option.
func TestORCOptions(t *testing.T) {
	for _, tc := range []struct {
		opts    map[string]string
		codec   string
		stripe  int64
		block   int
		level   int
		wantErr string
	}{
		{opts: map[string]string{}, codec: "zstd"},
		{opts: map[string]string{"file.compression": "zlib"}, codec: "zlib"},
		{opts: map[string]string{"file.compression": "SNAPPY", "orc.compress": "zlib"}, codec: "SNAPPY"},
		{opts: map[string]string{"orc.compress": "zlib"}, codec: "zstd"},
		{opts: map[string]string{"orc.stripe.size": "1048576", "orc.compress.size": "65536", "file.compression.zstd-level": "3"},
			codec: "zstd", stripe: 1 << 20, block: 65536, level: 3},
		{opts: map[string]string{"file.compression": "brotli"}, wantErr: "brotli"},
		{opts: map[string]string{"orc.stripe.size": "64mb"}, wantErr: "orc.stripe.size"},
		{opts: map[string]string{"orc.compress.size": "0"}, wantErr: "orc.compress.size"},
	} {
		o, err := orcOptions(tc.opts, "/t")
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "/t") {
				t.Errorf("%v: error %v, want one naming %s and the table", tc.opts, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.opts, err)
		}
		if o.Compression != tc.codec || o.StripeSize != tc.stripe || o.BlockSize != tc.block || o.ZstdLevel != tc.level {
			t.Errorf("%v: %+v", tc.opts, o)
		}
	}
}
