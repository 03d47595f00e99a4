package auth

import (
	"encoding/hex"
	"strings"
)

// parseStage2 reads the '*HEX' form MySQL's PASSWORD() prints (41
// characters) into a stage-2 hash; "" is no password.
func parseStage2(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if len(s) != 41 || s[0] != '*' {
		return "", &Error{Num: 1105, State: "HY000", kind: ErrUserOp,
			Msg: "Password hash should be a 41-digit hexadecimal number starting with '*'"}
	}
	b, err := hex.DecodeString(s[1:])
	if err != nil {
		return "", &Error{Num: 1105, State: "HY000", kind: ErrUserOp,
			Msg: "Password hash should be a 41-digit hexadecimal number starting with '*'"}
	}
	return hex.EncodeToString(b), nil
}

// CreateUserHashed is CreateUser with the password given as its '*HEX'
// stage-2 hash (CREATE USER … IDENTIFIED BY PASSWORD '*…').
func (s *Store) CreateUserHashed(id Identity, stage2 string, ifNotExists bool, opts ...UserOption) error {
	h, err := parseStage2(stage2)
	if err != nil {
		return err
	}
	return s.createUser(id, h, ifNotExists, opts...)
}

// SetPasswordHashed is SetPassword with the '*HEX' stage-2 hash.
func (s *Store) SetPasswordHashed(id Identity, stage2 string) error {
	h, err := parseStage2(stage2)
	if err != nil {
		return err
	}
	return s.setPassword(id, h)
}

// HostOf returns the host pattern of a user ('%' for root and admin).
func (s *Store) HostOf(user string) (string, bool) {
	if builtin[user] {
		return "%", true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	u := s.users[user]
	if u == nil {
		return "", false
	}
	return u.Host, true
}

// hexHash is the stored form of a cleartext password's stage-2 hash.
func hexHash(password string) string {
	if h := hashPassword(password); h != nil {
		return strings.ToLower(hex.EncodeToString(h))
	}
	return ""
}
