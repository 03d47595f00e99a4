#!/usr/bin/env bash
# Regenerates the Go code under proto/*pb from the .proto sources beside it.
# Run from anywhere: `go generate ./proto` or `bash proto/gen.sh`.
# Needs protoc (3.21, Debian's protobuf-compiler) and protoc-gen-go v1.36.12
# on PATH or in $(go env GOPATH)/bin.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$(go env GOPATH)/bin:$PATH"
module=github.com/inlet-db/inlet/proto

# Fluss 1.0 RPC messages (no services: Fluss frames its own RPCs).
protoc -I fluss \
	--go_out=. --go_opt=module="$module" \
	fluss/*.proto

# FE<->BE protocol: messages only. The service is Arrow Flight's (DoGet with
# a serialized Fragment as the ticket), so no gRPC stubs of our own.
protoc -I inlet \
	--go_out=. --go_opt=module="$module" \
	inlet/*.proto
