package iceberg

import (
	"strings"
	"testing"
)

// TestValidate: the properties of hadoop and rest catalogs, and the
// errors for what is missing or wrong, naming the property; secrets never
// appear in them.
func TestValidate(t *testing.T) {
	cases := []struct {
		props map[string]string
		err   string // "" when valid
	}{
		{map[string]string{"iceberg.catalog.type": "hadoop", "warehouse": "/wh"}, ""},
		{map[string]string{"iceberg.catalog.type": "hadoop"}, "Required property 'warehouse' is missing"},
		{map[string]string{"iceberg.catalog.type": "rest", "uri": "http://127.0.0.1:8181"}, ""},
		{map[string]string{"iceberg.catalog.type": "REST", "uri": "https://cat.example:443/api/", "warehouse": "s3://wh",
			"iceberg.rest.oauth2.credential": "id:secret-1"}, ""},
		{map[string]string{"iceberg.catalog.type": "rest"}, "Required property 'uri' is missing"},
		{map[string]string{"iceberg.catalog.type": "rest", "uri": "thrift://h:9083"}, "Invalid value 'thrift://h:9083' for property 'uri'"},
		{map[string]string{"iceberg.catalog.type": "rest", "uri": "http://"}, "Invalid value 'http://' for property 'uri'"},
		{map[string]string{"iceberg.catalog.type": "rest", "uri": "http://u:secret-2@h:1"}, "Property 'uri' must not carry credentials"},
		{map[string]string{"iceberg.catalog.type": "rest", "uri": "http://h:1", "iceberg.rest.oauth2.credential": "secret-3",
			"iceberg.rest.oauth2.token": "secret-4"}, "exclude each other"},
		{map[string]string{"iceberg.catalog.type": "hms", "uri": "thrift://h:9083"}, "Iceberg catalog type 'hms' (property 'iceberg.catalog.type') is not supported yet: only hadoop and rest are"},
		{map[string]string{"iceberg.catalog.type": "nessie"}, "Invalid value 'nessie' for property 'iceberg.catalog.type'; expected hadoop or rest"},
		{map[string]string{}, "Required property 'iceberg.catalog.type' is missing"},
	}
	for _, c := range cases {
		err := Validate(c.props)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.props, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: %v, want an error saying %q", c.props, err, c.err)
		case err != nil && strings.Contains(err.Error(), "secret-"):
			t.Errorf("%v: the error shows a secret: %v", c.props, err)
		}
	}
}
