package bench

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/runner"
)

// benchStream compares the rate at which a run's stdout reaches the runner
// (through Podman's attach) with the rate of the same program run bare on
// the host into a pipe.
type benchStream struct {
	// Bytes is what the program wrote, counted as the runner received it.
	Bytes int64 `json:"bytes"`
	// Run is the run's go to its end (RunResult.Wall); Bare the bare
	// program's whole life, its stdout read by this process.
	Run      time.Duration `json:"run_wall_ns"`
	Bare     time.Duration `json:"bare_wall_ns"`
	RunMBps  float64       `json:"run_mb_per_s"`
	BareMBps float64       `json:"bare_mb_per_s"`
}

// countingWriter counts what it is given and keeps none of it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// benchStreamRate runs argv once in a container of image through r, its
// stdout counted, and bare (its argv[0] replaced by barePath) on the host.
func benchStreamRate(ctx context.Context, r *plugin.Runner, image string, argv []string, barePath string) (benchStream, error) {
	var got countingWriter
	res, err := r.Run(ctx, runner.RunRequest{Image: image, Command: argv, Output: &got,
		Limits: runner.Limits{Time: 30 * time.Second, Output: 1 << 30}})
	if err != nil {
		return benchStream{}, err
	}
	if st := res.Status(); st != runner.StatusExited || res.ExitCode != 0 {
		return benchStream{}, fmt.Errorf("the stream's run ended %v (exit %d, %s)", st, res.ExitCode, res.KilledNote)
	}
	var bare countingWriter
	cmd := exec.CommandContext(ctx, barePath, argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return benchStream{}, err
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return benchStream{}, err
	}
	_, cerr := io.Copy(&bare, out)
	if err := cmd.Wait(); err != nil || cerr != nil {
		return benchStream{}, fmt.Errorf("bare %s: %v %v", barePath, err, cerr)
	}
	s := benchStream{Bytes: got.n, Run: res.Wall, Bare: time.Since(began)}
	if bare.n != got.n {
		return s, fmt.Errorf("the run's stdout was %d bytes, the bare program's %d", got.n, bare.n)
	}
	s.RunMBps = float64(s.Bytes) / 1e6 / s.Run.Seconds()
	s.BareMBps = float64(s.Bytes) / 1e6 / s.Bare.Seconds()
	return s, nil
}

func printStream(w io.Writer, s *benchStream) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "stdout of %d MiB: the runner read it at %.1f MB/s (go to end %.1f ms), a bare pipe at %.1f MB/s: %.2f × the pipe's rate\n",
		s.Bytes>>20, s.RunMBps, float64(s.Run.Microseconds())/1000, s.BareMBps, s.RunMBps/s.BareMBps)
}
