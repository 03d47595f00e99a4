package flightsrv

import (
	"context"
	"crypto/subtle"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authorize checks the cluster secret of a call in constant time. The
// answer never says what was expected.
func (s *Server) authorize(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	var got string
	if v := md.Get(SecretHeader); len(v) == 1 {
		got = v[0]
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Secret)) != 1 {
		s.m.authFail.Inc()
		return status.Error(codes.Unauthenticated, "inlet BE: wrong or missing cluster secret")
	}
	return nil
}
