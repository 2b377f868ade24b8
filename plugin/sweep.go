package plugin

import (
	"context"
	"errors"

	"github.com/podjail/podjail/bindings"
)

// Sweep removes the containers that podjail instances of this host left
// behind when they died, and returns their names.
func Sweep(ctx context.Context, rt bindings.Runtime, self Instance) ([]string, error) {
	list, err := rt.ListByLabel(ctx, LabelInstance)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, c := range list {
		if !orphaned(c.Labels, self, processAlive) {
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
