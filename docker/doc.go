// Package docker holds no Go code of use: the folder carries the
// docker-compose environment with a real Fluss 1.0 cluster, Flink tiering and
// an S3 server, for checking Inlet against the real thing (README.md). Its
// tests keep the compose file, the README and the Flink SQL fixture set
// (sql/, the same tables as the emulator's scenario) in agreement, since
// docker cannot run where the tests do.
package docker
