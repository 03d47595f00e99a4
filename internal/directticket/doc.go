// Package directticket signs and checks the Flight tickets with which a
// Flight SQL client reads a query's result from the BEs directly (Doris's
// "BE direct" endpoints): the FE, which planned the query and checked the
// user's privileges, signs one BE's fragment with the cluster secret and an
// expiry; the BE runs it for whoever presents the ticket, without the
// secret itself, until the expiry (the statement's query_timeout).
//
// What must stay true:
//   - Without the secret no ticket can be made or altered: the MAC covers
//     the version, the expiry and every byte of the fragment.
//   - A ticket past its expiry is refused, and the BE stops the stream at
//     the expiry.
//   - A BE without a secret refuses every direct ticket.
package directticket
