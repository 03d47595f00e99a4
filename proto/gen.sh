#!/usr/bin/env bash
# Regenerates the Go code under proto/*pb from the .proto sources beside it.
# Run from anywhere: `go generate ./proto` or `bash proto/gen.sh`.
# Needs protoc (3.21) and protoc-gen-go (and protoc-gen-go-grpc for services)
# on PATH or in $(go env GOPATH)/bin.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$(go env GOPATH)/bin:$PATH"
module=github.com/inlet-db/inlet/proto

# Fluss 1.0 RPC messages (no services: Fluss frames its own RPCs).
protoc -I fluss \
	--go_out=. --go_opt=module="$module" \
	fluss/*.proto

# FE<->BE protocol, when its sources exist (messages and gRPC services).
if compgen -G "inlet/*.proto" >/dev/null; then
	protoc -I inlet \
		--go_out=. --go_opt=module="$module" \
		--go-grpc_out=. --go-grpc_opt=module="$module" \
		inlet/*.proto
fi
