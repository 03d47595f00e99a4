#!/usr/bin/env bash
# The test command of the README: every package's tests, fixtures read from
# testdata/ in this repository (internal/fixtures). Tests that drive an outside
# tool (mariadb, node/npm) skip without it, or fail under CI=true as .ci/run
# sets. Heavy benchmarks are opt-in (go test -bench) and not run here.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -count=1 -timeout 25m ./...
