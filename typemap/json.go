package typemap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// MaxJSONDepth bounds nesting of ARRAY/MAP/ROW types read from JSON, so a
// hostile descriptor cannot exhaust the stack.
const MaxJSONDepth = 64

// MarshalJSON writes the type exactly as Fluss's DataTypeJsonSerde does:
// {"type":ROOT[,"nullable":false][,type-specific keys...]}.
func (t DataType) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := t.AppendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// AppendJSON writes the Fluss JSON of t to b.
func (t DataType) AppendJSON(b *bytes.Buffer) error {
	if int(t.Root) >= len(jsonNames) || jsonNames[t.Root] == "" {
		return fmt.Errorf("%w: unknown root %d", ErrInvalidType, uint8(t.Root))
	}
	b.WriteString(`{"type":"`)
	b.WriteString(t.Root.JSONName())
	b.WriteByte('"')
	if !t.Nullable {
		b.WriteString(`,"nullable":false`)
	}
	switch t.Root {
	case RootChar, RootBinary:
		fmt.Fprintf(b, `,"length":%d`, t.Length)
	case RootDecimal:
		fmt.Fprintf(b, `,"precision":%d,"scale":%d`, t.Precision, t.Scale)
	case RootTime, RootTimestamp, RootTimestampLTZ:
		fmt.Fprintf(b, `,"precision":%d`, t.Precision)
	case RootArray:
		if t.Elem == nil {
			return fmt.Errorf("%w: ARRAY without element type", ErrInvalidType)
		}
		b.WriteString(`,"element_type":`)
		if err := t.Elem.AppendJSON(b); err != nil {
			return err
		}
	case RootMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", ErrInvalidType)
		}
		b.WriteString(`,"key_type":`)
		if err := t.Key.AppendJSON(b); err != nil {
			return err
		}
		b.WriteString(`,"value_type":`)
		if err := t.Value.AppendJSON(b); err != nil {
			return err
		}
	case RootRow:
		b.WriteString(`,"fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":`)
			writeJSONString(b, f.Name)
			b.WriteString(`,"field_type":`)
			if err := f.Type.AppendJSON(b); err != nil {
				return err
			}
			if f.Description != "" {
				b.WriteString(`,"description":`)
				writeJSONString(b, f.Description)
			}
			fmt.Fprintf(b, `,"field_id":%d}`, f.ID)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return nil
}

// writeJSONString writes s as a JSON string the way Jackson does for the
// characters Fluss names contain (no HTML escaping).
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // cannot fail for a string
	b.Truncate(b.Len() - 1)
}

// WriteJSONString is exported for the table-descriptor codec so that every
// Fluss JSON string in Inlet is escaped one way.
func WriteJSONString(b *bytes.Buffer, s string) { writeJSONString(b, s) }

// UnmarshalJSON parses Fluss type JSON into t.
func (t *DataType) UnmarshalJSON(data []byte) error {
	v, err := ParseDataType(data)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// ParseDataType parses one Fluss data type JSON object.
func ParseDataType(data []byte) (DataType, error) {
	return parseType(data, 0)
}

func parseType(data []byte, depth int) (DataType, error) {
	if depth > MaxJSONDepth {
		return DataType{}, fmt.Errorf("%w: type nesting deeper than %d", ErrInvalidType, MaxJSONDepth)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return DataType{}, fmt.Errorf("%w: data type JSON: %v", ErrInvalidType, err)
	}
	var name string
	if err := getJSON(obj, "type", &name, true); err != nil {
		return DataType{}, err
	}
	root := Root(0)
	for r, n := range jsonNames {
		if n != "" && n == name {
			root = Root(r)
		}
	}
	if root == 0 {
		return DataType{}, fmt.Errorf("%w: unknown type %q", ErrInvalidType, name)
	}
	t := DataType{Root: root, Nullable: true}
	if err := getJSON(obj, "nullable", &t.Nullable, false); err != nil {
		return DataType{}, err
	}
	switch root {
	case RootChar, RootBinary:
		t.Length = 1
		if err := getInt32(obj, "length", &t.Length); err != nil {
			return DataType{}, err
		}
	case RootDecimal:
		t.Precision, t.Scale = 10, 0
		if err := getInt32(obj, "precision", &t.Precision); err != nil {
			return DataType{}, err
		}
		if err := getInt32(obj, "scale", &t.Scale); err != nil {
			return DataType{}, err
		}
	case RootTime:
		if err := getInt32(obj, "precision", &t.Precision); err != nil {
			return DataType{}, err
		}
	case RootTimestamp, RootTimestampLTZ:
		t.Precision = DefaultTimestampPrec
		if err := getInt32(obj, "precision", &t.Precision); err != nil {
			return DataType{}, err
		}
	case RootArray:
		raw, ok := obj["element_type"]
		if !ok {
			return DataType{}, fmt.Errorf("%w: ARRAY JSON lacks \"element_type\"", ErrInvalidType)
		}
		e, err := parseType(raw, depth+1)
		if err != nil {
			return DataType{}, fmt.Errorf("ARRAY element: %w", err)
		}
		t.Elem = &e
	case RootMap:
		kr, ok1 := obj["key_type"]
		vr, ok2 := obj["value_type"]
		if !ok1 || !ok2 {
			return DataType{}, fmt.Errorf("%w: MAP JSON lacks \"key_type\" or \"value_type\"", ErrInvalidType)
		}
		k, err := parseType(kr, depth+1)
		if err != nil {
			return DataType{}, fmt.Errorf("MAP key: %w", err)
		}
		v, err := parseType(vr, depth+1)
		if err != nil {
			return DataType{}, fmt.Errorf("MAP value: %w", err)
		}
		t.Key, t.Value = &k, &v
	case RootRow:
		var raws []json.RawMessage
		if err := getJSON(obj, "fields", &raws, true); err != nil {
			return DataType{}, err
		}
		t.Fields = make([]Field, 0, len(raws))
		for i, fr := range raws {
			var fo map[string]json.RawMessage
			if err := json.Unmarshal(fr, &fo); err != nil {
				return DataType{}, fmt.Errorf("%w: ROW field %d: %v", ErrInvalidType, i, err)
			}
			f := Field{ID: -1}
			if err := getJSON(fo, "name", &f.Name, true); err != nil {
				return DataType{}, fmt.Errorf("ROW field %d: %w", i, err)
			}
			ft, ok := fo["field_type"]
			if !ok {
				return DataType{}, fmt.Errorf("%w: ROW field %q lacks \"field_type\"", ErrInvalidType, f.Name)
			}
			ty, err := parseType(ft, depth+1)
			if err != nil {
				return DataType{}, fmt.Errorf("ROW field %q: %w", f.Name, err)
			}
			f.Type = ty
			if err := getJSON(fo, "description", &f.Description, false); err != nil {
				return DataType{}, fmt.Errorf("ROW field %q: %w", f.Name, err)
			}
			if err := getInt32(fo, "field_id", &f.ID); err != nil {
				return DataType{}, fmt.Errorf("ROW field %q: %w", f.Name, err)
			}
			t.Fields = append(t.Fields, f)
		}
	}
	if err := t.Validate(); err != nil {
		return DataType{}, err
	}
	return t, nil
}

func getJSON(obj map[string]json.RawMessage, key string, dst any, required bool) error {
	raw, ok := obj[key]
	if !ok {
		if required {
			return fmt.Errorf("%w: JSON lacks %q", ErrInvalidType, key)
		}
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%w: JSON key %q: %v", ErrInvalidType, key, err)
	}
	return nil
}

func getInt32(obj map[string]json.RawMessage, key string, dst *int32) error {
	var v int64
	raw, ok := obj[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%w: JSON key %q: %v", ErrInvalidType, key, err)
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return fmt.Errorf("%w: JSON key %q: %d out of int32 range", ErrInvalidType, key, v)
	}
	*dst = int32(v)
	return nil
}
