package record

import (
	"bytes"
	"errors"
	"testing"

	"github.com/inlet-db/inlet/typemap"
)

// putFixedSlot serves BinaryArray elements and Paimon key fields alike, so
// every fixed-width type is checked here once, byte for byte.
func TestPutFixedSlot(t *testing.T) {
	tests := []struct {
		typ  typemap.DataType
		v    any
		want []byte
	}{
		{typemap.Boolean(), true, []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{typemap.Boolean(), false, []byte{0, 0, 0, 0, 0, 0, 0, 0}},
		{typemap.TinyInt(), int8(-2), []byte{0xfe, 0, 0, 0, 0, 0, 0, 0}},
		{typemap.SmallInt(), int16(0x0102), []byte{2, 1, 0, 0, 0, 0, 0, 0}},
		{typemap.Int(), int32(-1), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
		{typemap.Date(), int32(19000), []byte{0x38, 0x4a, 0, 0, 0, 0, 0, 0}},
		{typemap.Time(0), int32(1), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{typemap.Float(), float32(1), []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0}},
		{typemap.BigInt(), int64(0x0102030405060708), []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{typemap.Double(), float64(1), []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
	}
	for _, tc := range tests {
		slot := make([]byte, 8)
		fixed, err := putFixedSlot(slot, "c", tc.typ, tc.v)
		if err != nil || !fixed {
			t.Errorf("%v %v: fixed=%v err=%v", tc.typ, tc.v, fixed, err)
			continue
		}
		if !bytes.Equal(slot, tc.want) {
			t.Errorf("%v %v: slot % x, want % x", tc.typ, tc.v, slot, tc.want)
		}
		// The wrong Go type is an error naming the field, not a zero.
		if fixed, err := putFixedSlot(make([]byte, 8), "c", tc.typ, "x"); !fixed || !errors.Is(err, ErrInvalid) {
			t.Errorf("%v given a string: fixed=%v err=%v, want ErrInvalid", tc.typ, fixed, err)
		}
	}
	if fixed, err := putFixedSlot(make([]byte, 8), "c", typemap.String(), "x"); fixed || err != nil {
		t.Errorf("STRING: fixed=%v err=%v, want not fixed and no error", fixed, err)
	}
}
