// Package auth keeps the FE's users and privileges, as Doris does: users
// 'name'@'host-pattern' with a password, and privileges (SELECT_PRIV,
// LOAD_PRIV, ALTER_PRIV, CREATE_PRIV, DROP_PRIV, GRANT_PRIV, ADMIN_PRIV)
// granted on ctl.db.tbl with "*" wildcards (*.*.*, ctl.*.*, ctl.db.*).
//
// What must stay true:
//   - Passwords are never stored, logged or returned: only MySQL's stage-2
//     hash SHA1(SHA1(p)) is kept, which verifies both a cleartext password
//     (HTTP Basic auth) and a mysql_native_password scramble. Error texts
//     never contain a password.
//   - root and admin always exist, hold every privilege, and log in with
//     the FE's root password rule (WithRootPassword); they are not in the
//     file and cannot be dropped or granted to.
//   - A change is durable when its method returns nil: the file under the
//     meta dir is replaced atomically (temporary file, fsync, rename, fsync
//     of the directory); on a failed write the in-memory state is rolled back.
//   - A privilege on a level covers everything below it (*.*.* covers every
//     catalog; ctl.db.* every table of db); ADMIN_PRIV implies all others.
//   - Denials carry Doris's error numbers and texts (Error.Num/State/Msg).
//
// Store is safe for concurrent use.
package auth
