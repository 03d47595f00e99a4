// Package loginguard slows password guessing, one Guard for every protocol
// a server checks passwords on (the MySQL handshake, Stream Load's HTTP
// Basic auth), so guesses spread over both count together.
//
// Failures are counted per (user, client host): another user's successful
// login does not reset them, and guessing one account does not slow the
// others. After FreeFailures failures of a (user, host), the answer to each
// further wrong password waits its turn, turns Delay apart, whatever the
// number of connections; the wait is capped at MaxWait. The password is
// always checked and a correct one is answered at once and clears the
// count: guessing never locks out the rightful owner.
//
// What must stay true: no password is logged or kept; one warning is
// logged when a (user, host) starts being slowed down, not one per
// failure; the table of counts is bounded (MaxKeys, oldest forgotten).
package loginguard
