#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (an Iceberg REST catalog server with its own S3
# store; fe/server TestIcebergCatalogREST runs it as `weed mini`) from its
# Go module at a pinned version into $(go env GOPATH)/bin, unless that
# version is already there. Its go.mod has a replace directive, which
# `go install module@version` refuses, so it is built from a throwaway
# module that repeats the replacement. Takes minutes (a large program).
set -euo pipefail
export PATH="/usr/local/go/bin:$PATH"
version=v0.0.0-20261109003541-7506e5f91cd6
bin="$(go env GOPATH)/bin"
stamp="$bin/weed.version"
if [ -x "$bin/weed" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/go.mod" <<EOF
module weedbuild

go 1.26.8

require github.com/seaweedfs/seaweedfs $version

// As in SeaweedFS's own go.mod.
replace github.com/tyler-smith/go-bip39 => github.com/cosmos/go-bip39 v1.0.0
EOF
cat >"$work/tools.go" <<'EOF'
//go:build tools

package tools

import _ "github.com/seaweedfs/seaweedfs/weed"
EOF
mkdir -p "$bin"
if ! (cd "$work" && go mod tidy >"$work/log" 2>&1 && go build -o "$bin/weed" github.com/seaweedfs/seaweedfs/weed >>"$work/log" 2>&1); then
  tail -30 "$work/log"; exit 1
fi
echo "$version" >"$stamp"
echo "built weed $version into $bin"
