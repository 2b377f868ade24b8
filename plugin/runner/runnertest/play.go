package runnertest

// A fake container's life from its start (Runtime.play): what its
// Program does, under the shim's protocol or without it.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/shim"
)

// play is the container's life from its start.
func (rt *Runtime) play(c *Container) {
	p := c.Prog
	rt.mu.Lock()
	stdin, stdout, stderr := c.stdin, c.stdout, c.stderr
	rt.mu.Unlock()
	dir := ""
	if c.Spec.CgroupParent != "" {
		dir = rt.cg.Path(c.Spec.CgroupParent)
	}
	if c.shimmed && dir != "" {
		// The shim's two cgroups below the container's, as on a host.
		prog := makeShimCgroups(filepath.Join(dir, "libpod-"+c.ID, "container"))
		rt.mu.Lock()
		c.programCgroup = prog
		rt.mu.Unlock()
	}
	report := shim.Report{TimeUs: p.CPU.Microseconds(), UserUs: p.CPU.Microseconds(), PeakBytes: p.Peak, PidsPeak: 1, ExitCode: p.Exit, Signal: p.Signal}
	killed := func(signal string) {
		if signal == "KILL" || !c.shimmed { // the container is killed outright
			c.finish(stderr, 137, nil)
			return
		}
		// SIGTERM to the shim: it kills the program and still reports.
		report.ExitCode, report.Signal = -1, "SIGKILL"
		c.finish(stderr, 137, &report)
	}
	if c.shimmed && p.DiesAtStart {
		c.finish(io.Discard, 159, nil) // 128 + SIGSYS
		return
	}
	// The shim opens the runner's pipes first (shim --status, --control,
	// --stdout); one it cannot open ends it with a report of that step.
	openPipe := func(path string, flag int, step shim.Step) *os.File {
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			c.finish(stderr, shim.ExitFailure, &shim.Report{ExitCode: -1, PidsPeak: -1, Error: err.Error(), Step: step})
		}
		return f
	}
	if c.shimmed && c.Spec.StatusPipe != "" {
		// Its stderr is the status pipe; its end, once the shim is gone,
		// is the run's.
		f := openPipe(c.Spec.StatusPipe, os.O_WRONLY, shim.StepStatus)
		if f == nil {
			return
		}
		defer f.Close()
		stderr = f
		if p.StatusLost {
			_, _ = io.WriteString(f, "shim: setting up\n")
			f.Close()
			killed(<-c.kill)
			return
		}
	}
	if c.shimmed && c.Spec.ControlPipe != "" {
		f := openPipe(c.Spec.ControlPipe, os.O_RDONLY, shim.StepStdin)
		if f == nil {
			return
		}
		defer f.Close()
		stdin = f
	}
	if c.shimmed && c.Spec.StdoutPipe != "" {
		f := openPipe(c.Spec.StdoutPipe, os.O_WRONLY, shim.StepStdout)
		if f == nil {
			return
		}
		defer func() {
			// What the pipe still held when the report came (LateStdout)
			// is read after it, and its end comes last.
			if len(p.LateStdout) > 0 {
				time.Sleep(p.StreamLag)
				_, _ = f.Write(p.LateStdout)
			}
			f.Close()
		}()
		stdout = f
	}
	if c.shimmed {
		if p.FailStep != "" {
			c.finish(stderr, shim.ExitFailure, &shim.Report{ExitCode: -1, PidsPeak: -1, Error: "fake failure", Step: p.FailStep})
			return
		}
		if dir != "" && p.SetupCPU > 0 {
			_ = ChargeCPU(dir, p.SetupCPU)
		}
		_, _ = io.WriteString(stderr, "shim: setting up\n"+shim.ArmedLine(c.nonce))
		got := make(chan byte, 1)
		go func() {
			var b [1]byte
			if n, _ := stdin.Read(b[:]); n == 1 {
				got <- b[0]
			}
			close(got)
		}()
		select {
		case b, ok := <-got:
			if !ok || b != shim.GoByte {
				c.finish(stderr, shim.ExitFailure, &shim.Report{ExitCode: -1, PidsPeak: -1, Error: "no go", Step: shim.StepGo})
				return
			}
		case sig := <-c.kill:
			killed(sig)
			return
		}
	}
	if c.shimmed && slices.Contains(c.Spec.Command, "--unpack") {
		rt.unpack(c)
	}
	rt.mu.Lock()
	rt.goes = append(rt.goes, c.ID)
	hook := rt.onGo
	rt.mu.Unlock()
	if hook != nil {
		hook(c)
	}
	if p.Gate != nil {
		select {
		case <-p.Gate:
		case sig := <-c.kill:
			killed(sig)
			return
		}
	}
	if p.AtGo != nil {
		q := p.AtGo(c.Spec)
		p.Stdout, p.Exit = q.Stdout, q.Exit
		report.ExitCode = q.Exit
		if q.Files != nil {
			p.Files = q.Files
		}
	}
	if dir != "" {
		_ = ChargeCPU(dir, p.CPU)
		_ = SetPeak(dir, p.Peak+1<<20)
	}
	for range max(p.Repeat, 1) {
		if len(p.Stdout) > 0 && !c.ended.Load() {
			_, _ = stdout.Write(p.Stdout)
		}
	}
	if len(p.Files) > 0 {
		rt.mu.Lock()
		for name, data := range p.Files {
			c.files[name] = data
		}
		rt.mu.Unlock()
	}
	if p.Echo {
		copied := make(chan struct{})
		go func() {
			_, _ = io.Copy(stdout, stdin)
			close(copied)
		}()
		select {
		case <-copied:
		case sig := <-c.kill:
			killed(sig)
			return
		}
	}
	if p.Expect != nil {
		got := make(chan []byte, 1)
		go func() {
			b := make([]byte, len(p.Expect))
			n, _ := io.ReadFull(stdin, b)
			got <- b[:n]
		}()
		select {
		case b := <-got:
			if !bytes.Equal(b, p.Expect) {
				report.ExitCode = 1
			}
		case sig := <-c.kill:
			killed(sig)
			return
		}
	}
	if p.OOMKill {
		if dir != "" {
			_ = SetOOMKill(dir)
		}
		rt.mu.Lock()
		c.oom = true
		rt.mu.Unlock()
		report.ExitCode, report.Signal, report.OOMKill = -1, "SIGKILL", 1
	}
	if p.Hang {
		killed(<-c.kill)
		return
	}
	if p.NoReport {
		c.finish(stderr, 137, nil)
		return
	}
	if p.ReportLag > 0 {
		<-time.After(p.ReportLag)
	}
	c.finish(stderr, int32(report.Status()), &report)
}

// finish ends the container: the report last on its stderr (the status
// pipe, or the attach), then its exit (ExitLag later, after a report:
// conmon's part once the shim is gone), then the end of its stream.
func (c *Container) finish(stderr io.Writer, code int32, rep *shim.Report) {
	c.end.Do(func() {
		reported := rep != nil && c.shimmed
		if reported {
			_, _ = stderr.Write(shim.FormatReport(c.nonce, *rep))
		}
		exit := func() {
			c.ended.Store(true)
			c.exit = code
			close(c.done)
		}
		if !reported || c.Prog.ExitLag <= 0 {
			exit()
			return
		}
		go func() {
			select {
			case <-time.After(c.Prog.ExitLag):
			case <-c.kill:
			}
			exit()
		}()
	})
}

// GoodHost is the host the fake runtime reports: one podjail's doctor
// accepts.
var GoodHost = bindings.HostInfo{Version: "5.4.2", APIVersion: "5.4.2", OCIRuntime: "crun", CgroupManager: "systemd", CgroupVersion: "v2"}

// makeShimCgroups makes the shim's cgroups in base, as the shim does: its
// own and the program's, with the program's cgroup.kill, empty until
// written. It returns the program's ("" if they could not be made).
func makeShimCgroups(base string) string {
	prog := filepath.Join(base, shim.ProgramCgroup)
	for _, d := range []string{filepath.Join(base, shim.ShimCgroup), prog} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return ""
		}
	}
	if err := os.WriteFile(filepath.Join(prog, "cgroup.kill"), nil, 0o644); err != nil {
		return ""
	}
	return prog
}

// killedFromHost says whether "1" was written to the program's cgroup.kill.
func (c *Container) killedFromHost() bool {
	if c.programCgroup == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(c.programCgroup, "cgroup.kill"))
	return err == nil && string(b) == "1"
}
