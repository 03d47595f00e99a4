// Package catalog declares the Catalog, Database and Table interfaces every
// catalog type (internal, fluss, paimon) implements, and helpers that validate
// catalog properties. It holds no implementation: the FE binds names through
// these interfaces and never sees a catalog's wire or file details.

package catalog
