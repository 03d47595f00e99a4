package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/inlet-db/inlet/internal/fixtures"
	"github.com/inlet-db/inlet/minifluss"
)

// flussCredentials is the S3/OSS token JSON of GET_FILESYSTEM_SECURITY_TOKEN
// (CredentialsJsonSerde), decoded strictly so an unknown key fails.
type flussCredentials struct {
	Version         *int    `json:"version"`
	AccessKeyID     *string `json:"access_key_id"`
	AccessKeySecret *string `json:"access_key_secret"`
	SecurityToken   *string `json:"security_token"`
}

func decodeCredentials(t *testing.T, b []byte) flussCredentials {
	t.Helper()
	var c flussCredentials
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("token %d bytes: not Fluss credentials JSON: %v", len(b), err)
	}
	if c.Version == nil || *c.Version != 1 {
		t.Fatalf("token: credentials JSON version %v, want 1", c.Version)
	}
	return c
}

func loadCredentialCases(t *testing.T) []struct{ JSON, Direction, Describes string } {
	t.Helper()
	raw, err := os.ReadFile(fixtures.Path(t, "fluss", "json_serde.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Credentials struct {
			Cases []struct{ JSON, Direction, Describes string } `json:"cases"`
		} `json:"filesystem_credentials"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Credentials.Cases) == 0 {
		t.Fatal("json_serde.json has no filesystem_credentials cases")
	}
	return f.Credentials.Cases
}

// TestSecurityTokenFixtureCredentials feeds Java's credential JSONs
// (filesystem_credentials) through SecurityToken: the three values decode
// as the fixture describes them, and no form of printing the token shows
// any of them.
func TestSecurityTokenFixtureCredentials(t *testing.T) {
	// Hand-copied from the fixture's "describes" (CredentialsJsonSerdeTest).
	want := []flussCredentials{
		{AccessKeyID: ptr("myrandomaccessid111"), AccessKeySecret: ptr("myrandomaccesssecret111"), SecurityToken: ptr("myrandomsecuritytoken")},
		{AccessKeyID: ptr("myrandomaccessid222"), AccessKeySecret: ptr("myrandomaccesssecret222"), SecurityToken: ptr("myrandomsecuritytoken222")},
	}
	cases := loadCredentialCases(t)
	if len(cases) != len(want) {
		t.Fatalf("fixture has %d credential cases, test knows %d", len(cases), len(want))
	}
	for i, c := range cases {
		got := decodeCredentials(t, []byte(c.JSON))
		w := want[i]
		if got.AccessKeyID == nil || got.AccessKeySecret == nil || got.SecurityToken == nil ||
			*got.AccessKeyID != *w.AccessKeyID || *got.AccessKeySecret != *w.AccessKeySecret || *got.SecurityToken != *w.SecurityToken {
			t.Errorf("case %d (%s): decoded %+v", i, c.Describes, got)
			continue
		}
		if !strings.Contains(c.Describes, *w.AccessKeySecret) {
			t.Fatalf("case %d: fixture describes %q, test expects secret %s", i, c.Describes, *w.AccessKeySecret)
		}
		exp := int64(1700000000000)
		tok := &SecurityToken{Scheme: "s3", Token: []byte(c.JSON), ExpirationTime: &exp,
			AdditionInfo: map[string]string{"fs.s3a.endpoint": "http://s3.local:9000"}}
		for _, s := range []string{tok.String(), fmt.Sprint(tok), fmt.Sprintf("%v", *tok), fmt.Sprintf("%+v", tok)} {
			for _, secret := range []string{*w.AccessKeyID, *w.AccessKeySecret, *w.SecurityToken} {
				if strings.Contains(s, secret) {
					t.Errorf("case %d: printed token shows %q: %s", i, secret, s)
				}
			}
		}
	}
}

// TestEmulatorSecurityTokenFormat: the token the emulator hands out over TCP
// has the shape of Java's credentials JSON (only its keys, version 1), so
// a client built against the fixtures reads it.
func TestEmulatorSecurityTokenFormat(t *testing.T) {
	emu := startEmulator(t, minifluss.Config{TabletServers: 1})
	cl := emuClient(t, emu)
	tok, err := cl.GetFileSystemSecurityToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tok.Scheme != "file" {
		t.Errorf("scheme %q", tok.Scheme)
	}
	c := decodeCredentials(t, tok.Token)
	// The local file system needs no credentials: none may be made up.
	if c.AccessKeyID != nil || c.AccessKeySecret != nil || c.SecurityToken != nil {
		t.Errorf("local file system token carries credentials: %+v", c)
	}
	if tok.ExpirationTime == nil || *tok.ExpirationTime <= 0 {
		t.Errorf("expiration %v", tok.ExpirationTime)
	}
}

func ptr[T any](v T) *T { return &v }
