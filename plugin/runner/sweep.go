package runner

import (
	"context"
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
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

// Close ends the runner's work on the host. It removes what this podjail
// instance (this process: every Runner of it shares Self) still has:
// nothing, unless a run's own cleanup lost a race, which is then logged.
// And it sweeps once more what dead instances left: a request a killed
// instance had in flight when it died (a container's create, a parent's
// transient unit) is carried out by Podman or systemd all the same, and
// can land after this runner's start swept. Call it once no run of this
// process is under way.
func (r *Runner) Close(ctx context.Context) {
	log := r.Log
	if log == nil {
		log = hclog.NewNullLogger()
	}
	left, err := sweep(ctx, r.Runtime, r.Self, true)
	r.observe().Swept(OrphanContainer, len(left))
	if err != nil {
		log.Warn("sweeping containers failed", "error", err)
	} else if len(left) > 0 {
		log.Warn("removed containers left at close (ours, whose cleanup was missed, or dead instances')", "containers", left)
	}
	if r.Cgroups == nil {
		return
	}
	left, err = sweepParents(ctx, r.Cgroups, r.Self, processAlive, true)
	r.observe().Swept(OrphanParent, len(left))
	if err != nil {
		log.Warn("sweeping run parents failed", "error", err)
	} else if len(left) > 0 {
		log.Warn("removed run parents left at close (ours, whose cleanup was missed, or dead instances')", "parents", left)
	}
}

// SweepContainers sweeps what dead instances left (Sweep), logging it
// and telling obs.
func SweepContainers(ctx context.Context, rt bindings.Runtime, self Instance, log hclog.Logger, obs Observer) {
	gone, err := Sweep(ctx, rt, self)
	obs.Swept(OrphanContainer, len(gone))
	if err != nil {
		log.Warn("sweeping containers of dead podjail instances failed", "error", err)
	} else if len(gone) > 0 {
		log.Info("removed containers left by dead podjail instances", "containers", gone)
	}
}

// SweepParentsLogged sweeps the run parents dead instances left
// (SweepParents), logging it and telling obs.
func SweepParentsLogged(ctx context.Context, d cgroupdrv.Driver, self Instance, log hclog.Logger, obs Observer) {
	swept, err := SweepParents(ctx, d, self)
	obs.Swept(OrphanParent, len(swept))
	if err != nil {
		log.Warn("removing cgroups of dead podjail instances failed", "error", err)
	} else if len(swept) > 0 {
		log.Info("removed cgroups left by dead podjail instances", "parents", swept)
	}
}
