package runner

import (
	"fmt"
	"time"

	"github.com/podjail/podjail/cgroupdrv"
	"github.com/podjail/podjail/shim"
)

// CgroupSlack is taken off the parent cgroup's CPU total before it floors
// the shim's figure. The parent also holds the container's own work (crun's
// init, the shim and its probe; conmon is kept out, see bindings.Spec),
// measured at 0.18-0.51 s in the emulated test VM, so far less on real
// hardware; a second stays above that, yet still catches a program that
// hides CPU from wait4 (a child it never waits for, a daemon it leaves).
const CgroupSlack = time.Second

// Measure is what a run is charged for and how each figure was decided.
type Measure struct {
	// Time is the processor time charged to the program.
	Time time.Duration `json:"time_ns"`
	// TimeFrom says which reading Time is.
	TimeFrom string `json:"time_from"`
	// ShimTime is the shim's wait4 rusage of the program (user + system):
	// its main process and the children it waited for. -1 without a shim
	// report.
	ShimTime time.Duration `json:"shim_time_ns"`
	// ProgramCPU is the program cgroup's cpu.stat usage, as the shim read
	// it once every process of the program was dead: all of them, waited
	// for or not, and nothing of the container's. -1 without a shim report
	// (0 from a shim that does not read it).
	ProgramCPU time.Duration `json:"program_cpu_ns"`
	// ContainerCPU is the parent cgroup's cpu.stat usage: the program and
	// the container's own work. -1 without a parent reading.
	ContainerCPU time.Duration `json:"container_cpu_ns"`
	// ContainerCost is ContainerCPU less the program's own time (the
	// larger of ShimTime and ProgramCPU); -1 if either is missing.
	ContainerCost time.Duration `json:"container_cost_ns"`
	// SetupCPU is the part of ContainerCPU spent before the go (crun's
	// init, the shim's setup and probe of an armed run): the program did
	// not exist yet, so it is never charged. Zero for a run not armed.
	SetupCPU time.Duration `json:"setup_cpu_ns"`

	// Peak is the program's peak memory in bytes: its own cgroup's
	// memory.peak, reported by the shim (informational). -1 if unknown.
	Peak int64 `json:"peak_bytes"`
	// PeakFrom says which reading Peak is.
	PeakFrom string `json:"peak_from"`
	// ContainerPeak is the parent cgroup's memory.peak; -1 if unknown.
	ContainerPeak int64 `json:"container_peak_bytes"`

	// MemoryExceeded says the memory limit was hit (MLE).
	MemoryExceeded bool `json:"memory_exceeded"`
	// MemoryFrom says what MemoryExceeded was decided from.
	MemoryFrom string `json:"memory_from"`
}

// decide applies the measurement rules to what the run left: the shim's
// report (nil if there is none) and the parent cgroup's counters (nil if
// there was no parent). shimmed says the run was started under the shim;
// setup is the parent's CPU total at the go (0 for a run not armed).
//
//   - time = max(shim's rusage, program cgroup's usage, parent CPU - setup
//   - CgroupSlack); without the shim, the parent's CPU total as it is.
//     The program cgroup counts every process of the program, the children
//     it never waited for too, and rusage the ones it did; the report is
//     the program's container's, so each figure can only raise the charge,
//     and the parent's floor, which no process in the container can lower,
//     bounds a forged report. What the parent used before the go was the
//     container's own setup, never the program's.
//   - MLE only from the parent's memory.events (oom or oom_kill), never
//     from a SIGKILL or Podman's OOMKilled flag, which is also set when
//     some other process of the container was killed.
func decide(rep *shim.Report, cg *cgroupdrv.Counters, shimmed bool, setup time.Duration) Measure {
	m := Measure{ShimTime: -1, ProgramCPU: -1, ContainerCPU: -1, ContainerCost: -1, Peak: -1, ContainerPeak: -1}
	if rep != nil {
		m.ShimTime = time.Duration(rep.TimeUs) * time.Microsecond
		m.ProgramCPU = time.Duration(rep.CgroupUs) * time.Microsecond
		m.Time, m.TimeFrom = m.ShimTime, "shim: wait4 rusage of the program"
		if m.ProgramCPU > m.ShimTime {
			m.Time, m.TimeFrom = m.ProgramCPU, fmt.Sprintf("shim: cpu.stat usage of the program's cgroup, every process of it (above its wait4 rusage %s)", m.ShimTime)
		}
		m.Peak, m.PeakFrom = rep.PeakBytes, "shim: memory.peak of the program's cgroup (untrusted)"
	}
	if cg != nil {
		m.ContainerCPU, m.ContainerPeak = cg.CPU, cg.Peak
		if rep != nil {
			m.ContainerCost = cg.CPU - max(m.ShimTime, m.ProgramCPU)
		}
		m.SetupCPU = min(setup, cg.CPU)
		switch floor := max(cg.CPU-m.SetupCPU-CgroupSlack, 0); {
		case !shimmed:
			m.Time, m.TimeFrom = cg.CPU, "parent cgroup cpu.stat usage (no shim: includes the container's own work)"
		case rep == nil:
			m.Time, m.TimeFrom = floor, fmt.Sprintf("parent cgroup cpu.stat usage since the go - %s (no shim report)", CgroupSlack)
		case floor > m.Time:
			m.Time, m.TimeFrom = floor, fmt.Sprintf("parent cgroup cpu.stat usage since the go - %s (above the shim's %s)", CgroupSlack, m.Time)
		}
		if m.Peak < 0 {
			m.Peak, m.PeakFrom = cg.Peak, "parent cgroup memory.peak (includes the container's own memory)"
		}
		m.MemoryExceeded = cg.OOM > 0 || cg.OOMKill > 0
		m.MemoryFrom = fmt.Sprintf("parent cgroup memory.events: oom %d, oom_kill %d", cg.OOM, cg.OOMKill)
	} else if rep != nil {
		m.MemoryExceeded = rep.OOM > 0 || rep.OOMKill > 0
		m.MemoryFrom = fmt.Sprintf("shim report (untrusted, no parent cgroup): oom %d, oom_kill %d", rep.OOM, rep.OOMKill)
	}
	if m.TimeFrom == "" {
		m.TimeFrom = "no reading"
	}
	if m.PeakFrom == "" {
		m.PeakFrom = "no reading"
	}
	if m.MemoryFrom == "" {
		m.MemoryFrom = "no reading"
	}
	return m
}
