package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/policy"
)

// specStep is the host's processor time per REST lifecycle of the trivial
// program with one more part of podjail's run container than the step
// before (--spec-steps): where podjail's share above the bare lifecycle
// goes, part by part.
type specStep struct {
	Name    string        `json:"name"`
	HostCPU time.Duration `json:"host_cpu_per_lifecycle_ns"`
	// Aside: timed beside the step before for comparison, not a part of
	// the run container (the attach, which shimmed runs no longer make).
	Aside bool `json:"aside,omitempty"`
	// Cgroups is each cgroup's processor time per lifecycle, read as a
	// judge's Top is: the last step kept against a judge's test tells
	// where podjail's own calls and process cost the host.
	Cgroups map[string]time.Duration `json:"cgroups_per_lifecycle_ns,omitempty"`
	// RunCgroup is the median processor time of the container's own
	// parent cgroup, read before its removal, as a judge's RunCgroup:
	// what runs inside the container (crun's part there, the program).
	// Zero: no parent cgroup at this step.
	RunCgroup time.Duration `json:"run_cgroup_cpu_median_ns,omitempty"`
	// Procs is HostCPU by command (--by-process). Nil: not measured.
	Procs procTimes `json:"by_process_per_lifecycle_ns,omitempty"`
	// Runner names a step of the runner's own runs (not a container's
	// part) in the tables of their cgroups. Empty: a container's step.
	Runner string `json:"runner,omitempty"`
}

// specPart adds one part of a run's container to a lifecycle: to its spec,
// and what it does around it (a parent cgroup made and removed, the
// streams attached).
type specPart struct {
	name  string
	apply func(s *bindings.Spec, l *specLife)
	aside bool // not kept for the next steps (specStep.Aside)
}

// specLife is what a lifecycle does beside its spec: a parent cgroup,
// the streams attached, and when the container is removed (at once once
// it has exited; removeAfter its exit; or, noWait, right after its start,
// Podman stopping it).
type specLife struct {
	parent, attach, noWait bool
	removeAfter            time.Duration
}

// benchSpecSteps times n lifecycles (create, start, wait, remove, one at
// a time) of argv for each step, each step adding a part of the run
// container the runner makes (plugin/runner's spec) to the one before:
// the container's own settings, its seccomp profile, the shim's and the
// run's files mounted, its parent cgroup; and, aside, the attach a run
// without the shim still makes, and the removal later after the exit or
// before it (what it costs Podman when a runner removes); and, aside, a
// runner's runs of argv (the shim's whole protocol, no judge): alone, and
// armed ahead as a judge's slot keeps them. What
// the shim does at the go, and podjail's own calls and process, are the
// rest up to a judge's test.
func benchSpecSteps(ctx context.Context, r *plugin.Runner, image string, argv []string, n int, say func(string, ...any), m *procMeter) ([]specStep, error) {
	files, err := os.MkdirTemp("", "podjail-bench-spec-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(files)
	run, err := runFiles(files)
	if err != nil {
		return nil, err
	}
	parts := []specPart{
		{"podjail's container: limits, root with 3 caps, read-only root, scratch tmpfs, no log, own cgroup namespace, conmon outside", func(*bindings.Spec, *specLife) {}, false},
	}
	if r.Seccomp != "" {
		parts = append(parts, specPart{"+ its seccomp profile", func(s *bindings.Spec, _ *specLife) { s.SeccompProfile = r.Seccomp }, false})
	}
	if r.Shim != "" {
		parts = append(parts, specPart{"+ the shim, the input, three FIFOs and the stderr file mounted", func(s *bindings.Spec, _ *specLife) {
			s.ShimFile, s.InputFile, s.ControlPipe, s.StdoutPipe, s.StatusPipe, s.StderrFile = r.Shim, run.input, run.control, run.stdout, run.status, run.stderr
		}, false})
	}
	if r.Cgroups != nil {
		parts = append(parts, specPart{"+ its own parent cgroup (" + r.Cgroups.Name() + ")", func(_ *bindings.Spec, l *specLife) { l.parent = true }, false})
	}
	parts = append(parts,
		specPart{"+ stdout and stderr attached before the start (runs without the shim only)", func(_ *bindings.Spec, l *specLife) { l.attach = true }, true},
		specPart{"+ removed 0.5 s after its exit, not at once (conmon's cleanup process first)", func(_ *bindings.Spec, l *specLife) { l.removeAfter = 500 * time.Millisecond }, true},
		specPart{"+ removed right after its start, its exit not waited for (Podman stops it)", func(_ *bindings.Spec, l *specLife) { l.noWait = true }, true})

	spec := bindings.Spec{
		Image: image, Command: argv, Labels: r.Self.Labels("run"), Profile: policy.Shim(),
		MemoryBytes: 64 << 20, Pids: 64, CPUs: 1,
	}
	spec.Labels[bindings.BareLabel] = "1"
	var life specLife
	var steps []specStep
	for _, p := range parts {
		s, l := spec, life
		p.apply(&s, &l)
		say("... step %q", p.name)
		var runs []time.Duration
		if err := m.begin(); err != nil {
			return steps, err
		}
		cg0 := cgroupUsage()
		cpu, err := benchLifecycles(n, 1, func() (int32, error) { return specLifecycle(ctx, r, s, l, &runs) })
		if err != nil {
			return steps, fmt.Errorf("%s: %w", p.name, err)
		}
		step := specStep{Name: p.name, HostCPU: cpu, Aside: p.aside, Cgroups: perRun(cg0, cgroupUsage(), n), RunCgroup: median(runs)}
		if step.Procs, err = m.end(n); err != nil {
			return steps, err
		}
		steps = append(steps, step)
		if !p.aside {
			spec, life = s, l
		}
	}
	if r.Shim == "" {
		return steps, nil
	}
	// Aside, between the last step and a judge's test: the runner's own
	// runs, the shim's whole protocol, with nothing of the judge's layer
	// (no problem's files, no answer compared); alone, then armed ahead
	// as a judge's slot keeps them (what overlapping lifecycles cost).
	for _, b := range []struct {
		name, table string
		ahead       int
	}{
		{"a runner's run, one at a time: the shim's whole protocol, nothing armed ahead, no judge", "a runner's run alone", 0},
		{fmt.Sprintf("the same, the next %d armed ahead and the last removed beside, as a judge's slot", plugin.Lookahead), "runner's runs armed ahead", plugin.Lookahead},
	} {
		say("... step %q", b.name)
		if err := m.begin(); err != nil {
			return steps, err
		}
		var runs []time.Duration
		cg0, cpu0 := cgroupUsage(), hostCPU()
		if err := runnerRuns(ctx, r, image, argv, n, b.ahead, &runs); err != nil {
			return steps, fmt.Errorf("%s: %w", b.name, err)
		}
		step := specStep{Name: b.name, HostCPU: (hostCPU() - cpu0) / time.Duration(n), Aside: true, Runner: b.table,
			Cgroups: perRun(cg0, cgroupUsage(), n), RunCgroup: median(runs)}
		if step.Procs, err = m.end(n); err != nil {
			return steps, err
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// runnerRuns runs argv n times through the runner, one after the other,
// keeping ahead runs armed while one runs. With none ahead each run is
// also removed before the next is armed (runner.Run); with some, each is
// removed in the background once it has run, as a judge's slot does. Each
// run's cgroup processor time is added to runs.
func runnerRuns(ctx context.Context, r *plugin.Runner, image string, argv []string, n, ahead int, runs *[]time.Duration) error {
	req := runner.RunRequest{Image: image, Command: argv, Output: io.Discard, Limits: runner.Limits{Time: 2 * time.Second, Memory: 64 << 20}}
	var armed, fired []*runner.Armed
	defer func() {
		for _, a := range armed {
			a.Discard(context.WithoutCancel(ctx))
		}
		for _, a := range fired {
			<-a.Done()
		}
	}()
	for i := range n {
		for len(armed) <= ahead && i+len(armed) < n {
			a, err := r.Arm(ctx, req)
			if err != nil {
				return err
			}
			armed = append(armed, a)
		}
		a := armed[0]
		armed = armed[1:]
		res, err := a.Fire(ctx)
		fired = append(fired, a)
		if err != nil {
			return err
		}
		if st := res.Status(); st != runner.StatusExited || res.ExitCode != 0 {
			return fmt.Errorf("the run ended %v, exit %d (%s)", st, res.ExitCode, res.KilledNote)
		}
		if res.Cgroup != nil {
			*runs = append(*runs, res.Cgroup.CPU)
		}
		if ahead == 0 {
			<-a.Done()
		}
	}
	return nil
}

// specLifecycle creates, starts, waits for and removes one container of
// s, with l's parent cgroup and attach; with a parent, its processor time
// once the container is gone is added to runs.
func specLifecycle(ctx context.Context, r *plugin.Runner, s bindings.Spec, l specLife, runs *[]time.Duration) (code int32, err error) {
	if l.parent {
		p, err := r.Cgroups.Create(ctx, r.Self.ParentID())
		if err != nil {
			return 0, err
		}
		defer func() {
			if v, rerr := cgroupdrv.CPUUsage(p.Path); rerr == nil && err == nil {
				*runs = append(*runs, v)
			}
			if derr := r.Cgroups.Destroy(context.WithoutCancel(ctx), p); err == nil {
				err = derr
			}
		}()
		s.CgroupParent = p.CgroupParent
	}
	id, err := r.Runtime.Create(ctx, s)
	if err != nil {
		return 0, err
	}
	defer func() {
		if rerr := r.Runtime.Remove(context.WithoutCancel(ctx), id); err == nil {
			err = rerr
		}
	}()
	var attached chan error
	if l.attach {
		attached = make(chan error, 1)
		ready := make(chan struct{})
		go func() { attached <- r.Runtime.Attach(ctx, id, nil, io.Discard, io.Discard, ready) }()
		select {
		case <-ready:
		case err := <-attached:
			return 0, fmt.Errorf("attach: %w", err)
		}
	}
	if err := r.Runtime.Start(ctx, id); err != nil {
		return 0, err
	}
	if l.noWait {
		return 0, nil
	}
	if code, err = r.Runtime.Wait(ctx, id); err != nil {
		return code, err
	}
	if l.removeAfter > 0 {
		// Not a synchronisation: the removal's timing is what is timed.
		<-time.After(l.removeAfter)
	}
	if attached != nil {
		err = <-attached
	}
	return code, err
}

// benchRunFiles are the files a run mounts, made once for every step.
type benchRunFiles struct {
	input, control, stdout, status, stderr string
}

func runFiles(dir string) (benchRunFiles, error) {
	f := benchRunFiles{
		input: filepath.Join(dir, "input"), control: filepath.Join(dir, "control"),
		stdout: filepath.Join(dir, "stdout"), status: filepath.Join(dir, "status"), stderr: filepath.Join(dir, "stderr"),
	}
	for _, p := range []string{f.input, f.stderr} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return f, err
		}
	}
	for _, p := range []string{f.control, f.stdout, f.status} {
		if err := unix.Mkfifo(p, 0o600); err != nil {
			return f, fmt.Errorf("make the FIFO %s: %w", p, err)
		}
	}
	return f, os.Chmod(dir, 0o755)
}

// printSpecSteps prints each step's time per lifecycle beside the bare
// lifecycle's and the judge's test j at P = 1, then j's cgroups beside the
// last step kept's: what podjail adds to the container it runs, and where.
func printSpecSteps(w io.Writer, steps []specStep, j benchJudge) {
	bare, test := j.Floor, j.HostCPU
	if len(steps) == 0 || bare <= 0 {
		return
	}
	fmt.Fprintln(w, "podjail's run container built up from the bare one, host CPU per lifecycle, P = 1:")
	ratio := func(d time.Duration) float64 { return d.Seconds() / bare.Seconds() }
	fmt.Fprintf(w, "  %10s  1.00 ×             bare REST lifecycle\n", benchMS(bare))
	last := specStep{HostCPU: bare}
	for _, s := range steps {
		own := ""
		if s.RunCgroup > 0 {
			own = fmt.Sprintf(" (its own cgroup %s)", benchMS(s.RunCgroup))
		}
		fmt.Fprintf(w, "  %10s  %.2f × (%10s)  %s%s\n", benchMS(s.HostCPU), ratio(s.HostCPU), benchMSDiff(s.HostCPU-last.HostCPU), s.Name, own)
		if !s.Aside {
			last = s
		}
	}
	if test <= 0 {
		return
	}
	fmt.Fprintf(w, "  %10s  %.2f × (%10s)  a judge's test (against the last step kept): the shim's work at the go, podjail's calls and process\n", benchMS(test), ratio(test), benchMSDiff(test-last.HostCPU))
	if last.Cgroups == nil {
		return
	}
	fmt.Fprintln(w, "    per test, by cgroup: the judge, the last step kept, the difference")
	for _, c := range j.Top {
		fmt.Fprintf(w, "    %10s  %10s  %10s  %s\n", benchMS(c.CPU), benchMS(last.Cgroups[c.Path]), benchMSDiff(c.CPU-last.Cgroups[c.Path]), c.Path)
	}
	// The runner's runs in the same cgroups: what of the judge's excess
	// the runs themselves already have.
	for _, run := range steps {
		if run.Runner == "" || run.Cgroups == nil {
			continue
		}
		fmt.Fprintf(w, "    per run, by cgroup: %s, the last step kept, the difference\n", run.Runner)
		for _, c := range j.Top {
			fmt.Fprintf(w, "    %10s  %10s  %10s  %s\n", benchMS(run.Cgroups[c.Path]), benchMS(last.Cgroups[c.Path]), benchMSDiff(run.Cgroups[c.Path]-last.Cgroups[c.Path]), c.Path)
		}
	}
}
