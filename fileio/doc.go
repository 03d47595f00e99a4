// Package fileio is the narrow file-system seam under the lake readers and
// writers: local files and S3-compatible object stores behind one FS
// interface, selected by URI (a plain path or file:// is local, s3:// s3a://
// is S3, oss:// and obs:// are OSS and OBS through their S3-compatible APIs
// with their own endpoint and keys).
//
// What must stay true:
//   - FS.Open returns a File whose ReadAt is safe for concurrent use; Size is
//     known at open time (one HEAD for S3), so footers can be read as suffixes.
//   - Extra powers (List, Create, Remove) are separate interfaces found by type
//     assertion; callers must not assume every FS has them.
//   - A missing file is reported as an error matching fs.ErrNotExist.
//   - Secret values (access key, secret key, session token) never appear in
//     errors, logs or String output: errors name the bucket, key and endpoint.
//   - Knows nothing about file formats.
package fileio
