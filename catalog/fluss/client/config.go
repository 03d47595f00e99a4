package client

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Property names, as the Fluss client spells them (the catalog strips its
// "fluss." prefix before handing them over).
const (
	PropBootstrapServers = "bootstrap.servers"
	PropSecurityProtocol = "client.security.protocol"
	PropSaslMechanism    = "client.security.sasl.mechanism"
	PropSaslUsername     = "client.security.sasl.username"
	PropSaslPassword     = "client.security.sasl.password"
	PropRequestTimeout   = "client.request-timeout"
	PropConnectTimeout   = "client.connect-timeout"
	PropIdleTimeout      = "client.connection.idle-timeout"
	PropFetchMaxBytes    = "client.scanner.log.fetch.max-bytes"
	PropFetchBucketBytes = "client.scanner.log.fetch.max-bytes-for-bucket"
	PropFetchMaxWait     = "client.scanner.log.fetch.wait-max-time"
	PropScanKvBatchBytes = "client.scanner.kv.batch-size"
)

// Config is everything that shapes a connection. Two clients with equal
// Configs share pooled connections; any difference (a new password, another
// timeout) gets new ones.
type Config struct {
	BootstrapServers []string // host:port, at least one
	// SASL is true when client.security.protocol = sasl (PLAIN mechanism).
	SASL         bool
	SaslUsername string
	SaslPassword string // secret: never printed, logged or put in errors

	RequestTimeout time.Duration // per request; default 30 s
	ConnectTimeout time.Duration // TCP connect + handshake; default 10 s
	IdleTimeout    time.Duration // pooled connection closed after this idle time; default 60 s

	FetchMaxBytes       int32         // FetchLog max_bytes; default 16 MiB
	FetchMaxBucketBytes int32         // FetchLog max_fetch_bytes per bucket; default 1 MiB
	FetchMaxWait        time.Duration // FetchLog max_wait_ms; default 500 ms (bounded reads send 0 when caught up)
	ScanKvBatchBytes    int32         // SCAN_KV batch_size_bytes; default 4 MiB
	MaxFrameSize        int           // response frame cap; default DefaultMaxFrameSize

	// Other holds every property this client does not interpret, so that
	// they still take part in the pool key.
	Other map[string]string
}

// Defaults.
const (
	DefaultRequestTimeout   = 30 * time.Second
	DefaultConnectTimeout   = 10 * time.Second
	DefaultIdleTimeout      = 60 * time.Second
	DefaultFetchMaxBytes    = 16 << 20
	DefaultFetchBucketBytes = 1 << 20
	DefaultFetchMaxWait     = 500 * time.Millisecond
	DefaultScanKvBatchBytes = 4 << 20
)

// ConfigFromProperties builds a Config from Fluss client properties
// (prefix already stripped). Errors name the property, never its value when
// the value is a secret.
func ConfigFromProperties(props map[string]string) (Config, error) {
	var c Config
	c.Other = map[string]string{}
	for k, v := range props {
		var err error
		switch k {
		case PropBootstrapServers:
			for _, s := range strings.Split(v, ",") {
				s = strings.TrimSpace(s)
				if s == "" {
					continue
				}
				if _, _, e := net.SplitHostPort(s); e != nil {
					return c, fmt.Errorf("%w: %s: %q is not host:port", ErrConfig, k, s)
				}
				c.BootstrapServers = append(c.BootstrapServers, s)
			}
		case PropSecurityProtocol:
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "", "plaintext":
			case "sasl":
				c.SASL = true
			default:
				return c, fmt.Errorf("%w: %s: %q is not one of PLAINTEXT, SASL", ErrConfig, k, v)
			}
		case PropSaslMechanism:
			if !strings.EqualFold(strings.TrimSpace(v), "PLAIN") {
				return c, fmt.Errorf("%w: %s: only PLAIN is supported, got %q", ErrConfig, k, v)
			}
		case PropSaslUsername:
			c.SaslUsername = v
		case PropSaslPassword:
			c.SaslPassword = v
		case PropRequestTimeout:
			c.RequestTimeout, err = parseDuration(k, v)
		case PropConnectTimeout:
			c.ConnectTimeout, err = parseDuration(k, v)
		case PropIdleTimeout:
			c.IdleTimeout, err = parseDuration(k, v)
		case PropFetchMaxWait:
			c.FetchMaxWait, err = parseDuration(k, v)
		case PropFetchMaxBytes:
			c.FetchMaxBytes, err = parseSize(k, v)
		case PropFetchBucketBytes:
			c.FetchMaxBucketBytes, err = parseSize(k, v)
		case PropScanKvBatchBytes:
			c.ScanKvBatchBytes, err = parseSize(k, v)
		default:
			c.Other[k] = v
		}
		if err != nil {
			return c, err
		}
	}
	if len(c.BootstrapServers) == 0 {
		return c, fmt.Errorf("%w: %s is required", ErrConfig, PropBootstrapServers)
	}
	if c.SASL && c.SaslUsername == "" {
		return c, fmt.Errorf("%w: %s is required when %s is sasl", ErrConfig, PropSaslUsername, PropSecurityProtocol)
	}
	return c, nil
}

// parseDuration accepts Fluss duration strings: digits and a unit (ms, s,
// min, h, d and long forms), or Go durations; bare digits are milliseconds.
func parseDuration(key, v string) (time.Duration, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if i == 0 || err != nil {
		return 0, fmt.Errorf("%w: %s: %q is not a duration", ErrConfig, key, v)
	}
	var unit time.Duration
	switch strings.TrimSpace(s[i:]) {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		unit = time.Millisecond
	case "s", "sec", "secs", "second", "seconds":
		unit = time.Second
	case "m", "min", "mins", "minute", "minutes":
		unit = time.Minute
	case "h", "hour", "hours":
		unit = time.Hour
	case "d", "day", "days":
		unit = 24 * time.Hour
	default:
		return 0, fmt.Errorf("%w: %s: %q has an unknown time unit", ErrConfig, key, v)
	}
	return time.Duration(n) * unit, nil
}

// parseSize accepts a byte count with an optional kb/mb suffix.
func parseSize(key, v string) (int32, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1}} {
		if strings.HasSuffix(s, suf.s) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, suf.s)), suf.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n*mult > 1<<30 {
		return 0, fmt.Errorf("%w: %s: %q is not a size between 1 byte and 1 GiB", ErrConfig, key, v)
	}
	return int32(n * mult), nil
}

// withDefaults fills zero (or negative) fields.
func (c Config) withDefaults() Config {
	orDefault(&c.RequestTimeout, DefaultRequestTimeout)
	orDefault(&c.ConnectTimeout, DefaultConnectTimeout)
	orDefault(&c.IdleTimeout, DefaultIdleTimeout)
	orDefault(&c.FetchMaxBytes, DefaultFetchMaxBytes)
	orDefault(&c.FetchMaxBucketBytes, DefaultFetchBucketBytes)
	orDefault(&c.FetchMaxWait, DefaultFetchMaxWait)
	orDefault(&c.ScanKvBatchBytes, DefaultScanKvBatchBytes)
	orDefault(&c.MaxFrameSize, DefaultMaxFrameSize)
	return c
}

// orDefault sets *v to d unless *v is positive.
func orDefault[T ~int | ~int32 | ~int64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// key is the pool key: a digest of every field, so the password takes part
// without being kept in readable form in the pool's map.
func (c Config) key() string {
	c = c.withDefaults()
	h := sha256.New()
	fmt.Fprintf(h, "servers=%q\nsasl=%v\nuser=%q\npass=%q\n", c.BootstrapServers, c.SASL, c.SaslUsername, c.SaslPassword)
	fmt.Fprintf(h, "rt=%d ct=%d it=%d fmb=%d fbb=%d fw=%d kv=%d mf=%d\n", c.RequestTimeout, c.ConnectTimeout,
		c.IdleTimeout, c.FetchMaxBytes, c.FetchMaxBucketBytes, c.FetchMaxWait, c.ScanKvBatchBytes, c.MaxFrameSize)
	keys := make([]string, 0, len(c.Other))
	for k := range c.Other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%q=%q\n", k, c.Other[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// String prints the configuration with the password redacted.
func (c Config) String() string {
	pw := ""
	if c.SaslPassword != "" {
		pw = " password=<redacted>"
	}
	return fmt.Sprintf("fluss client{servers=%s sasl=%v user=%q%s}", strings.Join(c.BootstrapServers, ","), c.SASL, c.SaslUsername, pw)
}

// LogValue keeps the password out of structured logs.
func (c Config) LogValue() slog.Value {
	return slog.StringValue(c.String())
}
