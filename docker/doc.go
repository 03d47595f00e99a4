// Package docker holds no Go code of use: the folder carries the
// docker-compose environment with a real Fluss 1.0 cluster, Flink tiering and
// an S3 server, for checking Inlet against the real thing.
package docker
