package policy

import "errors"

// ErrInvalidProfile is wrapped by every profile validation failure.
var ErrInvalidProfile = errors.New("invalid security profile")
