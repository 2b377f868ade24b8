package bench

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// benchReport is what podjail bench measured, all in one boot.
type benchReport struct {
	Image   string `json:"image"`
	Program string `json:"program"`
	// PodmanRun is the median elapsed time of `podman run --rm` of the
	// program, the yardstick of every ratio.
	PodmanRun time.Duration `json:"podman_run_ns"`
	// PodjailRun is the median elapsed time of a whole `podjail run`
	// process (its setup, the run, the removal).
	PodjailRun time.Duration `json:"podjail_run_ns"`
	// Setup is the median time a runner takes to set up in the caller's
	// process (connect, sweeps, host info, seccomp profile), what every
	// CLI call without a service pays; ServiceDial the median time to
	// reach a running service instead (connect and a Capabilities call).
	// Zero: not measured (no --service).
	Setup       time.Duration `json:"runner_setup_ns,omitempty"`
	ServiceDial time.Duration `json:"service_dial_ns,omitempty"`
	// PodjailRunServiceFirst is the elapsed time of the first whole
	// `podjail run` process through the service (its container armed
	// when asked for); PodjailRunServiceBackToBack the median of the ones
	// right after it, each coming while the service still arms its
	// container and removes the last one; PodjailRunService the median of
	// the ones after a pause (benchPause), each taking the container the
	// service armed behind the one before. Zero: not measured.
	PodjailRunServiceFirst      time.Duration `json:"podjail_run_service_first_ns,omitempty"`
	PodjailRunServiceBackToBack time.Duration `json:"podjail_run_service_back_to_back_ns,omitempty"`
	PodjailRunService           time.Duration `json:"podjail_run_service_ns,omitempty"`
	// IsolateRun is the median wall time of a whole `isolate --run`
	// through the isolate front in process; IsolateRunService through the
	// service, each call after a pause. Zero: not measured (no --service).
	IsolateRun        time.Duration `json:"isolate_run_ns,omitempty"`
	IsolateRunService time.Duration `json:"isolate_run_service_ns,omitempty"`
	// Stream is the stdout rate of --stream; nil: not measured.
	Stream *benchStream `json:"stream,omitempty"`
	// BuildLang is the language of the timed builds of a trivial program
	// (--build-lang); BuildInProcess their median in the caller's process,
	// BuildService through the service, each after a pause (armed ahead
	// but the first). Zero: not measured.
	BuildLang      string        `json:"build_lang,omitempty"`
	BuildInProcess time.Duration `json:"build_in_process_ns,omitempty"`
	BuildService   time.Duration `json:"build_service_ns,omitempty"`
	// BuildFront is the same build as a front asks it of the service (Exec
	// with the source in and the artefacts back: omegajail's compile).
	BuildFront time.Duration `json:"build_front_ns,omitempty"`
	Judges     []benchJudge  `json:"judges"`
	Burners    []benchBurner `json:"burners,omitempty"`
	// SpecSteps build podjail's run container up from the bare one, a
	// part at a time, at P = 1 (--spec-steps). Nil: not measured.
	SpecSteps []specStep `json:"spec_steps,omitempty"`
	// Procs sets a judge's test beside a bare lifecycle and the last spec
	// step kept, by command, at P = 1 (--by-process). Nil: not measured.
	Procs *benchProcs `json:"by_process,omitempty"`
}

// benchJudge is one judge of the trivial problem.
type benchJudge struct {
	Parallel int `json:"parallel"`
	Tests    int `json:"tests"`
	// Critical is the median of the tests' critical paths (a test's turn
	// to its verdict); CriticalMax the slowest.
	Critical    time.Duration `json:"critical_median_ns"`
	CriticalMax time.Duration `json:"critical_max_ns"`
	// Fired is the median from a test's go to the end of its run: its
	// critical path when it was armed by its turn.
	Fired time.Duration `json:"fired_median_ns"`
	// Peak is the median of the program's peak memory.
	Peak int64 `json:"peak_median_bytes"`
	// RunCgroup is the median processor time of a run's own parent
	// cgroup (the shim, its probe, the program): gone with the run, it is
	// in HostCPU but in none of Top. Zero: no parent cgroups.
	RunCgroup time.Duration `json:"run_cgroup_cpu_median_ns,omitempty"`
	// TestsWall is from the end of the build to the last verdict; Wall
	// the whole judge, setup of the runner aside.
	TestsWall   time.Duration `json:"tests_wall_ns"`
	Wall        time.Duration `json:"wall_ns"`
	TestsPerSec float64       `json:"tests_per_second"`
	Verdict     string        `json:"verdict"`
	// HostCPU is the processor time the whole host used during the judge,
	// per test (/proc/stat): the container's own cost is what bounds the
	// judge once the program's is trivial. Top lists the cgroups that
	// used most of it, per test.
	HostCPU time.Duration `json:"host_cpu_per_test_ns"`
	Top     []cgroupCPU   `json:"top_cgroups_per_test"`
	// Floor is the host's processor time per bare REST lifecycle of the
	// same program at the same P (benchFloor), Podman's share that no
	// setting removes; OverFloor is HostCPU over it, podjail's whole
	// cost per test as a multiple of Podman's. Zero: not measured.
	Floor     time.Duration `json:"bare_lifecycle_host_cpu_ns,omitempty"`
	OverFloor float64       `json:"host_cpu_over_bare_lifecycle,omitempty"`
	// FloorAttached is the same bare lifecycle with the container's stdout
	// attached before the start, as podjail's runs are; less Floor, it is
	// the attach's own cost. Zero: not measured.
	FloorAttached time.Duration `json:"bare_attached_lifecycle_host_cpu_ns,omitempty"`
	// FloorAlive is the bare lifecycle again with Alive idle containers
	// running beside, as many as the judge keeps armed ahead (--idle):
	// less Floor, what Podman's work per container owes to the containers
	// alive. Zero: not measured.
	FloorAlive time.Duration `json:"bare_lifecycle_alive_host_cpu_ns,omitempty"`
	Alive      int           `json:"bare_lifecycle_alive,omitempty"`
	// Rounds are HostCPU over the floor again, each of a pair timed back
	// to back, bare lifecycles then a judge, the pairs one after another
	// (--rounds): a slow drift of the host under the bench moves both of
	// a pair alike, so their ratio is steadier than one floor's.
	// RoundsMedian is their median. Nil: one pair only (OverFloor).
	Rounds       []float64 `json:"rounds_host_cpu_over_bare_lifecycle,omitempty"`
	RoundsMedian float64   `json:"rounds_median,omitempty"`
	CriticalFrac float64   `json:"critical_over_podman_run"`
	WallFrac     float64   `json:"tests_wall_over_sequential_podman_runs"`
}

// benchBurner compares the time a judge charges a CPU burner with the
// burner's rusage when run bare on the host.
type benchBurner struct {
	Parallel int           `json:"parallel"`
	Bare     time.Duration `json:"bare_rusage_ns"`
	Reported []float64     `json:"reported_over_bare"`
}

func printBench(w io.Writer, r benchReport) {
	ms := benchMS
	fmt.Fprintf(w, "trivial program %s in %s\n", r.Program, r.Image)
	fmt.Fprintf(w, "podman run --rm (median)        %10s  1.00 ×\n", ms(r.PodmanRun))
	fmt.Fprintf(w, "podjail run, whole (median)     %10s  %.2f ×\n", ms(r.PodjailRun), r.PodjailRun.Seconds()/r.PodmanRun.Seconds())
	if r.Setup > 0 {
		fmt.Fprintf(w, "runner setup in process (median) %9s  %.3f × (what a CLI call pays without a service)\n", ms(r.Setup), r.Setup.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "reaching the service (median)   %10s  %.3f × (what it pays with one)\n", ms(r.ServiceDial), r.ServiceDial.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "podjail run through the service, first %10s  %.2f × (armed when asked)\n", ms(r.PodjailRunServiceFirst), r.PodjailRunServiceFirst.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  again, back to back (median)  %10s  %.2f × (each while the last is removed and its own armed)\n", ms(r.PodjailRunServiceBackToBack), r.PodjailRunServiceBackToBack.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  again, after a pause (median) %10s  %.2f × (armed ahead by the service)\n", ms(r.PodjailRunService), r.PodjailRunService.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "isolate --run in process (median) %8s  %.2f ×\n", ms(r.IsolateRun), r.IsolateRun.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  through the service, after a pause (median) %s  %.2f × (armed ahead, the box copied in and back)\n", ms(r.IsolateRunService), r.IsolateRunService.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildInProcess > 0 {
		fmt.Fprintf(w, "build of a trivial %s program, in process (median) %10s  %.2f ×\n", r.BuildLang, ms(r.BuildInProcess), r.BuildInProcess.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildService > 0 {
		fmt.Fprintf(w, "  through the service, after a pause (median) %10s  %.2f × (armed ahead, the sources unpacked by the shim)\n", ms(r.BuildService), r.BuildService.Seconds()/r.PodmanRun.Seconds())
	}
	if r.BuildFront > 0 {
		fmt.Fprintf(w, "  as a front through the service, after a pause %8s  %.2f × (Exec: the source in, the artefacts back on the call)\n", ms(r.BuildFront), r.BuildFront.Seconds()/r.PodmanRun.Seconds())
	}
	for _, j := range r.Judges {
		fmt.Fprintf(w, "judge %d tests, P = %d (the program's peak memory, median: %d KiB):\n", j.Tests, j.Parallel, j.Peak>>10)
		fmt.Fprintf(w, "  per-test critical path median %10s  %.3f × podman run (max %s)\n", ms(j.Critical), j.CriticalFrac, ms(j.CriticalMax))
		fmt.Fprintf(w, "  go to end of run, median       %10s  %.3f × podman run\n", ms(j.Fired), j.Fired.Seconds()/r.PodmanRun.Seconds())
		fmt.Fprintf(w, "  tests wall (build end→verdict) %10s  %.3f × %d sequential podman runs\n", ms(j.TestsWall), j.WallFrac, j.Tests)
		fmt.Fprintf(w, "  judge wall (build included)   %10s  %.1f tests/s\n", ms(j.Wall), j.TestsPerSec)
		fmt.Fprintf(w, "  host CPU per test             %10s  (bound on tests wall: %s on %d cores)\n", ms(j.HostCPU), ms(j.HostCPU*time.Duration(j.Tests)/time.Duration(runtime.NumCPU())), runtime.NumCPU())
		if j.RunCgroup > 0 {
			fmt.Fprintf(w, "  of it the run's own cgroup    %10s  (median: the shim, its probe, the program; gone with the run, in no cgroup below)\n", ms(j.RunCgroup))
		}
		if j.Floor > 0 {
			fmt.Fprintf(w, "  bare REST lifecycle, same P   %10s  host CPU per test %.2f × it (Podman's own work: the floor)\n", ms(j.Floor), j.OverFloor)
		}
		if len(j.Rounds) > 1 {
			parts := make([]string, len(j.Rounds))
			for i, x := range j.Rounds {
				parts[i] = fmt.Sprintf("%.2f", x)
			}
			fmt.Fprintf(w, "  the same, by pair (floor, then judge) %s: median %.2f ×\n", strings.Join(parts, " "), j.RoundsMedian)
		}
		if j.Floor > 0 && j.FloorAttached > 0 {
			fmt.Fprintf(w, "  the same, stdout attached     %10s  the attach %s, %.2f × the floor\n", ms(j.FloorAttached),
				benchMSDiff(j.FloorAttached-j.Floor), j.FloorAttached.Seconds()/j.Floor.Seconds())
		}
		if j.FloorAlive > 0 {
			fmt.Fprintf(w, "  the same, %d idle alive beside %10s  %.2f × the floor; host CPU per test %.2f × it\n", j.Alive, ms(j.FloorAlive),
				j.FloorAlive.Seconds()/j.Floor.Seconds(), j.HostCPU.Seconds()/j.FloorAlive.Seconds())
		}
		printTop(w, j)
		if j.Parallel == 1 {
			printSpecSteps(w, r.SpecSteps, j)
		}
	}
	printProcs(w, r.Procs)
	printStream(w, r.Stream)
	for _, b := range r.Burners {
		parts := make([]string, len(b.Reported))
		for i, x := range b.Reported {
			parts[i] = fmt.Sprintf("%.4f", x)
		}
		fmt.Fprintf(w, "burner, P = %d: reported/bare rusage (bare %s) %s\n", b.Parallel, ms(b.Bare), strings.Join(parts, " "))
	}
}
