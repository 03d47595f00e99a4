// Package proto holds the .proto sources of Inlet: the Fluss 1.0 RPC messages
// (flusspb) and the FE-BE protocol (inletpb). Generated Go lives in the
// subpackages and is made by gen.sh; nothing hand-written goes there.
package proto
