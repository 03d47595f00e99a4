package clustersecret

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	// EnvVar names a secret chosen by the operator; it wins over the file.
	EnvVar = "INLET_CLUSTER_SECRET"
	// FileName is the file under the FE's meta dir holding the secret.
	FileName = "cluster_secret"
	// ChallengePath is where a BE's HTTP listener answers challenges:
	// GET ?nonce=…&addr=… → the hex answer.
	ChallengePath = "/api/_internal/be_challenge"
)

// Path is the secret file of the FE whose meta dir is metaDir.
func Path(metaDir string) string { return filepath.Join(metaDir, FileName) }

// LoadOrCreate returns $INLET_CLUSTER_SECRET when set, else the secret in
// Path(metaDir), creating it (mode 0600) the first time. A file others can
// read is refused: anyone who reads it can pose as a BE.
func LoadOrCreate(metaDir string) (string, error) {
	if s := os.Getenv(EnvVar); s != "" {
		return s, nil
	}
	p := Path(metaDir)
	if s, err := Read(p); err == nil {
		return s, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(metaDir, 0o700); err != nil {
		return "", fmt.Errorf("cluster secret: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cluster secret: %w", err)
	}
	s := hex.EncodeToString(b[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another FE on the same meta dir won the race: use its secret.
		return Read(p)
	}
	if err != nil {
		return "", fmt.Errorf("cluster secret: %w", err)
	}
	if _, err := f.WriteString(s + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("cluster secret %s: %w", p, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("cluster secret %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("cluster secret %s: %w", p, err)
	}
	return s, nil
}

// Read returns the secret in file (surrounding white space trimmed). An
// empty file, or one group or others may read, is an error.
func Read(file string) (string, error) {
	st, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("cluster secret: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("cluster secret %s: mode %04o lets others read it; chmod 600 it", file, st.Mode().Perm())
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("cluster secret: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("cluster secret %s is empty", file)
	}
	return s, nil
}

// Answer is what a BE holding secret answers to nonce on addr.
func Answer(secret, nonce, addr string) string {
	m := hmac.New(sha256.New, []byte(secret))
	io.WriteString(m, "inlet-be-challenge\n"+addr+"\n"+nonce)
	return hex.EncodeToString(m.Sum(nil))
}

// Check tells, in constant time, whether got answers nonce on addr.
func Check(secret, nonce, addr, got string) bool {
	return hmac.Equal([]byte(got), []byte(Answer(secret, nonce, addr)))
}

// NewNonce returns a fresh random nonce.
func NewNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Handler answers challenges on a BE's HTTP listener. own tells whether an
// address is this BE's: a challenge for another address is refused, so a
// process at that address cannot relay challenges to this BE.
func Handler(secret string, own func(addr string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		nonce, addr := r.URL.Query().Get("nonce"), r.URL.Query().Get("addr")
		if len(nonce) < 16 || addr == "" {
			http.Error(w, "nonce and addr are required", http.StatusBadRequest)
			return
		}
		if !own(addr) {
			http.Error(w, "not this BE's address", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, Answer(secret, nonce, addr))
	})
}

// Challenge asks the BE HTTP listener at addr (host:port) to prove it holds
// secret. Nothing secret is sent.
func Challenge(ctx context.Context, addr, secret string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	nonce := NewNonce()
	u := "http://" + addr + ChallengePath + "?" + url.Values{"nonce": {nonce}, "addr": {addr}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("BE %s: %w", addr, err)
	}
	// No redirects: the answer must come from addr itself.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("BE %s did not answer the cluster challenge: %w", addr, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK || !Check(secret, nonce, addr, strings.TrimSpace(string(body))) {
		return fmt.Errorf("BE %s failed the cluster challenge", addr)
	}
	return nil
}
