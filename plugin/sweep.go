package plugin

import (
	"context"
	"errors"

	"github.com/podjail/podjail/bindings"
)

// Sweep removes the containers that podjail instances of this host left
// behind when they died, and returns their names.
func Sweep(ctx context.Context, rt bindings.Runtime, self Instance) ([]string, error) {
	return sweep(ctx, rt, self, false)
}

// sweep is Sweep; mineToo also takes self's own containers (a closing
// runner's: none should be left).
func sweep(ctx context.Context, rt bindings.Runtime, self Instance, mineToo bool) ([]string, error) {
	list, err := rt.ListByLabel(ctx, LabelInstance)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, c := range list {
		owner, _ := parseInstance(c.Labels)
		if !orphaned(c.Labels, self, processAlive) && !(mineToo && owner == self) {
			continue
		}
		if err := rt.Remove(ctx, c.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, c.Name)
	}
	return removed, errors.Join(errs...)
}
