// Package redact hides the passwords URIs carry in their user-info
// (s3://AK:PASSWORD@bucket/…, jdbc:mysql://u:p@host/…) wherever text leaves
// the process: errors sent to clients, log records, profiles and EXPLAIN.
// The user name stays (it helps to tell which credential failed); the
// password becomes Masked.
//
// What must stay true: URIPasswords is cheap on text without "://" (it is
// on the path of every error and log record) and never fails.
package redact
