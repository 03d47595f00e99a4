package mysqlwire

import (
	"errors"
	"fmt"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	querypb "vitess.io/vitess/go/vt/proto/query"
)

// Users is the account store logins are checked against (fe/auth.Store
// satisfies it). The wire layer sees only stage-2 hashes, never passwords.
type Users interface {
	// NativeHash returns MySQL's stage-2 hash SHA1(SHA1(password)) of user
	// logging in from host (an IP address); nil with ok for a user without
	// password; ok false when no such user may log in from host.
	NativeHash(user, host string) (stage2 []byte, ok bool)
}

// SSLRequirer is a Users that knows which accounts require SSL (CREATE
// USER … REQUIRE SSL); fe/auth.Store satisfies it.
type SSLRequirer interface {
	RequiresSSL(user, host string) bool
}

// checkUser verifies a mysql_native_password login against users. The
// answer for an unknown user, a host that does not match, a wrong
// password and an account that requires SSL logging in without it is the
// same 1045 (as MySQL answers), so a client cannot tell which users exist.
func checkUser(users Users, salt []byte, user, host string, authResponse []byte, overTLS bool) (mysql.Getter, error) {
	deny := sqlerror.NewSQLError(sqlerror.ERAccessDeniedError, sqlerror.SSAccessDeniedError,
		fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, host, yesNo(len(authResponse) > 0)))
	stage2, ok := users.NativeHash(user, host)
	switch {
	case !ok:
		return nil, deny
	case stage2 == nil:
		if len(authResponse) != 0 {
			return nil, deny
		}
	case len(authResponse) == 0 || !mysql.VerifyHashedMysqlNativePassword(authResponse, salt, stage2):
		return nil, deny
	}
	if r, ok := users.(SSLRequirer); ok && !overTLS && r.RequiresSSL(user, host) {
		return nil, deny
	}
	return userGetter(user), nil
}

type userGetter string

func (u userGetter) Get() *querypb.VTGateCallerID {
	return &querypb.VTGateCallerID{Username: string(u)}
}

// CodeErrno marks an error that carries its own MySQL error number and
// SQLSTATE (WithErrno): privilege errors (1142, 1044, 1227 …) whose numbers
// clients and tools react to.
const CodeErrno Code = 1 << 16

type errnoError struct {
	num   uint16
	state string
	err   error
}

func (e *errnoError) Error() string { return e.err.Error() }
func (e *errnoError) Unwrap() error { return e.err }

// WithErrno gives err (nil stays nil) an explicit MySQL error number and
// SQLSTATE.
func WithErrno(num uint16, state string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: CodeErrno, Err: &errnoError{num: num, state: state, err: err}}
}

// errnoOf finds the explicit number of an error made by WithErrno.
func errnoOf(err error) (wireCode, bool) {
	var e *errnoError
	if CodeOf(err) != CodeErrno || !errors.As(err, &e) {
		return wireCode{}, false
	}
	return wireCode{e.num, e.state}, true
}
