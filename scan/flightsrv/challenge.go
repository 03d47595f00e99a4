package flightsrv

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/inlet-db/inlet/internal/clustersecret"
)

// ChallengeAction is the DoAction type of the cluster challenge: body
// "<nonce>\n<addr>", one result whose body is clustersecret.Answer. The FE
// sends it to a BE that registered before it sends that address anything
// carrying the secret.
const ChallengeAction = "inlet.be_challenge"

const doActionMethod = "/arrow.flight.protocol.FlightService/DoAction"

const doGetMethod = "/arrow.flight.protocol.FlightService/DoGet"

// DoAction answers the cluster challenge; every other action needs the
// secret and is not implemented.
func (s *Server) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	if a.GetType() != ChallengeAction {
		if err := s.authorize(stream.Context()); err != nil {
			return err
		}
		return status.Errorf(codes.Unimplemented, "inlet BE: unknown action %q", a.GetType())
	}
	nonce, addr, ok := strings.Cut(string(a.GetBody()), "\n")
	if !ok || len(nonce) < 16 || addr == "" {
		return status.Error(codes.InvalidArgument, "inlet BE: challenge body must be nonce and address")
	}
	if s.cfg.Secret == "" || s.cfg.Own == nil || !s.cfg.Own(addr) {
		return status.Error(codes.PermissionDenied, "inlet BE: not this BE's address")
	}
	return stream.Send(&flight.Result{Body: []byte(clustersecret.Answer(s.cfg.Secret, nonce, addr))})
}
