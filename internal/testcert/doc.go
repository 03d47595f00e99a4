// Package testcert makes the self-signed certificates TLS tests need: one
// for 127.0.0.1 and localhost, valid for an hour either side of now, with
// its PEM files and a pool that trusts it. It is for tests only; nothing it
// makes is kept.
package testcert
