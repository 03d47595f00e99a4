// Package lint holds no code: its tests keep the house rules of
// shared/spec/style.md true over the whole repository, in the spirit of
// pebble's internal/lint.
//
// What the tests check (each failure names the package or file and the
// import or line at fault):
//
//   - Layering (style.md §3): every package imports only what its line of
//     the plan lists, read from `go list -json ./...`. A package may also
//     import its own subtree where the table says so, the leaves internal/…
//     and typemap, except where §3 is stricter ("standard library only",
//     "arrow only", "nothing else of ours", "imports no Inlet package").
//     Forbidden reaches are followed through the whole import graph of the
//     module and reported with the chain that leads there.
//   - No import cycles, including cycles that only a package's own tests
//     close.
//   - Every package directory has a package comment (doc.go by habit).
//   - Outside cmd/, no non-test file imports flag or reaches for
//     memory.DefaultAllocator (style.md §2.2 habit 5).
//   - Git tracks no *.test binaries and no file larger than 5 MB.
//
// The rule table covers every package of §3, also those not written yet, so
// a rule starts to bite as soon as its package appears; packages no rule
// covers are listed with -v so a new one is noticed.
package lint
