// Package npmcache installs the npm packages a Go program or test drives
// from node (DuckDB for the benchmarks, MySQL client drivers for the client
// tests), each set pinned by a package.json the caller embeds, into the user
// cache directory, once per version.
//
// What must stay true:
//   - Nothing is installed into the repository: npm runs in a temporary
//     directory under the cache and the result is renamed into place, so
//     concurrent first runs never see half an install, and a failed
//     install leaves nothing behind.
//   - The directory is keyed by the caller's name and version, so a changed
//     pin installs beside the old one instead of over it.
package npmcache
