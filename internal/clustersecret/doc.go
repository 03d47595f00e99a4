// Package clustersecret keeps the secret an FE and its BEs share, and the
// challenge by which a BE proves, on its own address, that it holds it.
//
// The FE creates the secret on first start (LoadOrCreate: 32 random bytes,
// hex, in <meta-dir>/cluster_secret, mode 0600) unless $INLET_CLUSTER_SECRET
// names one; a BE in its own process reads the same file (--secret-file) or
// the variable. Registration of a BE needs the secret, and before the FE
// sends anything to a registered address (redirected Stream Loads carry a
// user's credentials) it sends a fresh nonce there and checks the answer,
// an HMAC over the nonce and that address: a process that merely listens on
// the address, or relays to a real BE elsewhere, cannot answer.
//
// What must stay true: the secret is never printed or logged, and answers
// are compared in constant time.
package clustersecret
