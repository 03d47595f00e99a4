package record

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Bucket functions (fluss-common bucketing/*BucketingFunction.java,
// utils/MurmurHashUtils.java, utils/MathUtils.java#murmurHash):
//
//	none, lance  h = M42(key); g = murmurHash(h) (one block mix from seed 0,
//	             ^4, fmix, abs with MIN_VALUE → 0); bucket = g mod N
//	paimon       bucket = |M42(key) rem N| (Java truncated remainder)
//	iceberg      bucket = (murmur3_32(key, seed 0) & 0x7fffffff) mod N
//	hudi         key = 4-byte BE int v; bucket = (v & 0x7fffffff) mod N
//
// M42 is Fluss's Murmur3-32 variant, seed 42: full 4-byte LE words are
// block-mixed; then EACH tail byte, sign-extended from a signed byte, is
// mixed as a full block; then h ^= len and fmix.

func mixK1(k uint32) uint32 {
	k *= 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	return k * 0x1b873593
}

func mixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func fmix32(h uint32, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// flussHashBytes is MurmurHashUtils.hashUnsafeBytes(key, seed).
func flussHashBytes(b []byte, seed uint32) int32 {
	h := seed
	aligned := len(b) &^ 3
	for i := 0; i < aligned; i += 4 {
		h = mixH1(h, mixK1(binary.LittleEndian.Uint32(b[i:])))
	}
	for _, x := range b[aligned:] {
		h = mixH1(h, mixK1(uint32(int32(int8(x)))))
	}
	return int32(fmix32(h, uint32(len(b))))
}

// flussMurmurInt is MathUtils.murmurHash(int).
func flussMurmurInt(code int32) int32 {
	h := int32(fmix32(mixH1(0, mixK1(uint32(code))), 4))
	switch {
	case h >= 0:
		return h
	case h != -1<<31:
		return -h
	}
	return 0
}

// murmur3x86_32 is standard Murmur3-32 (Guava murmur3_32_fixed).
func murmur3x86_32(b []byte, seed uint32) uint32 {
	h := seed
	aligned := len(b) &^ 3
	for i := 0; i < aligned; i += 4 {
		h = mixH1(h, mixK1(binary.LittleEndian.Uint32(b[i:])))
	}
	var k uint32
	tail := b[aligned:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		h ^= mixK1(k)
	}
	return fmix32(h, uint32(len(b)))
}

// Bucket assigns key bytes (from EncodeKey with the same lake format) to
// one of n buckets.
func Bucket(f LakeFormat, key []byte, n int32) (int32, error) {
	if n < 1 {
		return 0, fmt.Errorf("%w: bucket count %d", ErrInvalid, n)
	}
	switch f {
	case LakeNone, LakeLance:
		if len(key) == 0 {
			return 0, fmt.Errorf("%w: empty bucket key", ErrInvalid)
		}
		return flussMurmurInt(flussHashBytes(key, 42)) % n, nil
	case LakePaimon:
		r := flussHashBytes(key, 42) % n
		if r < 0 {
			r = -r
		}
		return r, nil
	case LakeIceberg:
		return int32(murmur3x86_32(key, 0)&0x7fffffff) % n, nil
	case LakeHudi:
		if len(key) != 4 {
			return 0, fmt.Errorf("%w: Hudi bucket key of %d bytes (want 4)", ErrInvalid, len(key))
		}
		return int32(binary.BigEndian.Uint32(key)&0x7fffffff) % n, nil
	}
	return 0, fmt.Errorf("%w: lake format %d", ErrUnsupported, f)
}
