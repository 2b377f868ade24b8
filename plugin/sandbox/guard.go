package sandbox

import "context"

// guard is what a Server checks before it does a call's work: the
// caller's share (shares.go), the request's bounds (bounds.go) and an
// Exec's image (images.go).
type guard struct {
	bounds Bounds // with its defaults
	images imageList
	*shares
}

func newGuard(opts ServerOptions) *guard {
	b := opts.Bounds.WithDefaults()
	return &guard{bounds: b, images: newImageList(opts.Images), shares: newShares(b)}
}

// exec is x as the engine gets it (the default wall filled in), or why
// it may not run: its image, or a limit over its bound.
func (g *guard) exec(x ExecRequest) (ExecRequest, error) {
	if err := g.images.allows(x.Image); err != nil {
		return x, err
	}
	return g.bounds.execLimits(x)
}

// beginCall is begin for a call that does work (Compile, Run, Exec,
// Judge): counted against its caller's share until done, or refused.
func (s *Server) beginCall(ctx context.Context, call string) (context.Context, func(), error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	leave, err := s.guard.enter(ctx)
	if err != nil {
		done()
		s.log.Info(call+" refused", "caller_uid", callerOf(ctx), "error", err)
		return nil, nil, toStatus(err)
	}
	return ctx, func() { leave(); done() }, nil
}
