package sandbox

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
)

// The kinds of infrastructure failure a judge tells apart. The client
// returns errors matching exactly one of them (errors.Is), carrying the
// plugin's message; an Engine marks its errors with them (Mark) so that the
// server sends the matching gRPC status code.
var (
	// ErrUnavailable: Podman cannot be reached (codes.Unavailable); also
	// when the plugin process itself is gone. Retry later.
	ErrUnavailable = errors.New("podjail unavailable")
	// ErrFailedPrecondition: the host is unfit or an image is missing
	// (codes.FailedPrecondition). An operator must fix the host.
	ErrFailedPrecondition = errors.New("podjail host not ready")
	// ErrInvalidArgument: the request is bad (codes.InvalidArgument): an
	// unknown language or handle, a broken problem package, bad limits or
	// input, limits over the service's largest (bounds.go).
	ErrInvalidArgument = errors.New("podjail request invalid")
	// ErrPermissionDenied: the caller may not ask this of the service
	// (codes.PermissionDenied): a host path from a caller that is neither
	// the service's user nor root, an image the service does not allow
	// (images.go). Call it as that user, or work in process.
	ErrPermissionDenied = errors.New("podjail request not permitted")
	// ErrResourceExhausted: the caller is past its share of the service
	// (codes.ResourceExhausted): too many calls under way, too many
	// handles kept, more bytes to give back than the service keeps for one
	// call (bounds.go), or a message over MaxMessage. Nothing was judged:
	// wait for a call to end, release handles, or ask for less.
	ErrResourceExhausted = errors.New("podjail resources exhausted")
	// ErrInternal: anything else (codes.Internal and unexpected codes).
	ErrInternal = errors.New("podjail internal error")
)

// Error is an error the plugin answered with, as the client returns it:
// Kind is one of the sentinels above, or context.Canceled or
// context.DeadlineExceeded; Message is the plugin's.
type Error struct {
	Code    codes.Code
	Kind    error
	Message string
}

func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Message }
func (e *Error) Unwrap() error { return e.Kind }

// Mark returns err marked as kind (one of the sentinels above): errors.Is
// matches kind and everything err matches, and the message is err's.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, kind: kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.err, m.kind} }

// Code is the gRPC status code the server sends for err: the kind it is
// marked with, else InvalidArgument for an unknown language
// (lang.ErrUnknownLanguage) or a broken problem (problem.ErrInvalid),
// Canceled or DeadlineExceeded for an ended context, Internal otherwise.
func Code(err error) codes.Code {
	switch {
	case err == nil:
		return codes.OK
	case errors.Is(err, ErrUnavailable):
		return codes.Unavailable
	case errors.Is(err, ErrFailedPrecondition):
		return codes.FailedPrecondition
	case errors.Is(err, ErrInvalidArgument), errors.Is(err, lang.ErrUnknownLanguage), errors.Is(err, problem.ErrInvalid):
		return codes.InvalidArgument
	case errors.Is(err, ErrPermissionDenied):
		return codes.PermissionDenied
	case errors.Is(err, ErrResourceExhausted):
		return codes.ResourceExhausted
	case errors.Is(err, ErrInternal):
		return codes.Internal
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		return s.Code()
	}
	return codes.Internal
}

// toStatus turns an engine's error into the status error the server sends.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(err); ok && s.Code() != codes.Unknown {
		return err
	}
	return status.Error(Code(err), err.Error())
}

// fromStatus turns a gRPC error back into an *Error of the right kind.
func fromStatus(err error) error {
	if err == nil {
		return nil
	}
	s, ok := status.FromError(err)
	if !ok {
		return &Error{Code: codes.Unknown, Kind: ErrInternal, Message: err.Error()}
	}
	return &Error{Code: s.Code(), Kind: kindOf(s.Code()), Message: s.Message()}
}

func kindOf(c codes.Code) error {
	switch c {
	case codes.Unavailable:
		return ErrUnavailable
	case codes.FailedPrecondition:
		return ErrFailedPrecondition
	case codes.InvalidArgument, codes.NotFound, codes.OutOfRange:
		return ErrInvalidArgument
	case codes.ResourceExhausted:
		return ErrResourceExhausted
	case codes.PermissionDenied:
		return ErrPermissionDenied
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	}
	return ErrInternal
}

// invalid is a bad request found by the server or the client.
func invalid(msg string) error { return Mark(errors.New(msg), ErrInvalidArgument) }
