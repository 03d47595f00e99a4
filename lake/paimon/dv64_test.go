package paimon

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

func TestDeletionVector64(t *testing.T) {
	// Hand-built from Bitmap64DeletionVector's layout (CRC by Python's
	// zlib.crc32): positions 4 and 2^32+1, array containers.
	b := unhex(t, "00000038 d1d33964 0200000000000000 00000000 3a300000010000000000000010000000 0400 01000000 3a300000010000000000000010000000 0100 37a7a89a")
	dv, err := DecodeDeletionVector(b)
	if err != nil {
		t.Fatal(err)
	}
	if !dv.Contains(4) || !dv.Contains(1<<32+1) || dv.Contains(1) || dv.Contains(1<<32+4) || dv.Cardinality() != 2 {
		t.Fatalf("dv: %+v", dv)
	}
	if enc := EncodeDeletionVector64([]uint64{1<<32 + 1, 4}); !bytes.Equal(enc, b) {
		t.Fatalf("encode: %x", enc)
	}
	// As Java writes after runOptimize: key 0 holds the run 0..9, key 1 is
	// an empty bitmap, key 2 holds low value 1.
	b = unhex(t, "00000041 d1d33964 0300000000000000 00000000 3b300000 01 0000 0900 0100 0000 0900 01000000 3a300000 00000000 02000000 3a300000010000000000000010000000 0100 6eedb9ed")
	if dv, err = DecodeDeletionVector(b); err != nil {
		t.Fatal(err)
	}
	for pos, want := range map[int64]bool{0: true, 9: true, 10: false, 1 << 32: false, 2<<32 + 1: true, 2 << 32: false, 3<<32 + 1: false} {
		if dv.Contains(pos) != want {
			t.Fatalf("position %d: %v", pos, !want)
		}
	}
	if dv.Cardinality() != 11 {
		t.Fatalf("cardinality %d", dv.Cardinality())
	}
	for name, mut := range map[string]func([]byte){
		"crc":        func(b []byte) { b[len(b)-1] ^= 1 },
		"count":      func(b []byte) { b[8] = 0xff },
		"key order":  func(b []byte) { b[47] = 1 },
		"bad cookie": func(b []byte) { b[20] = 0 },
	} {
		bad := append([]byte(nil), b...)
		mut(bad)
		if name != "crc" {
			// Re-sign so the structural check, not the CRC, must catch it.
			binary.BigEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[4:len(bad)-4]))
		}
		if _, err := DecodeDeletionVector(bad); err == nil {
			t.Errorf("%s: corrupt vector accepted", name)
		}
	}
}
