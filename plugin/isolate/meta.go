package isolate

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Status is the two-letter status of a meta file.
type Status string

// Statuses (isolate.1.txt). The zero value is a program that exited with
// status 0: isolate then writes no status line.
const (
	StatusOK Status = ""
	StatusRE Status = "RE" // exited with a non-zero status
	StatusSG Status = "SG" // died on a signal
	StatusTO Status = "TO" // timed out
	StatusXX Status = "XX" // internal error of the sandbox
)

// Stats are the figures isolate writes once the program has ended
// (final_stats and cg_stats).
type Stats struct {
	Time         time.Duration // processor time; written in whole ms ("time:1.234")
	WallTime     time.Duration // elapsed time; likewise ("time-wall")
	MaxRSSKiB    int64         // largest resident set, KiB ("max-rss")
	CswVoluntary int64         // voluntary context switches ("csw-voluntary")
	CswForced    int64         // forced context switches ("csw-forced")
	// CG says the box ran with --cg: only then are CgMemKiB and
	// CgOOMKilled written.
	CG bool
	// CgMemKiB is the control group's peak memory in KiB ("cg-mem");
	// written only when not 0.
	CgMemKiB int64
	// CgOOMKilled is "cg-oom-killed:1": the OOM killer killed a process
	// of the box.
	CgOOMKilled bool
}

// Meta is one meta file. Zero value: no line at all (isolate's meta file
// before anything happened).
type Meta struct {
	// Stats are the program's figures. Nil: it never ran (a sandbox
	// error before it started), and none of its lines is written.
	Stats *Stats
	// ExitCode is "exitcode": the program exited with it. Nil: it did not
	// exit (a signal or a kill ended it).
	ExitCode *int
	// ExitSig is "exitsig": the signal that ended or stopped it. 0: none.
	ExitSig int
	// Killed is "killed:1": the sandbox killed the program (time limit,
	// an interrupt, its own error while the program ran).
	Killed bool
	// Status is the two-letter status; StatusOK writes none.
	Status Status
	// Message is the human message ("Time limit exceeded"). Empty: none.
	Message string
}

// WriteMeta writes m in isolate's format and order. isolate writes as
// events happen, so the order has two shapes: after the program ended by
// itself, the figures, then exitcode, exitsig, status and message; when
// the sandbox killed it (Killed), exitsig, status, message, "killed:1",
// then the figures. A Status of more than two letters or a Message with a
// newline is an error and nothing is written.
func WriteMeta(w io.Writer, m Meta) error {
	if len(m.Status) != 0 && len(m.Status) != 2 || strings.ContainsAny(string(m.Status)+m.Message, "\n") {
		return fmt.Errorf("isolate meta: bad status %q or message %q", m.Status, m.Message)
	}
	var b strings.Builder
	if !m.Killed {
		writeStats(&b, m.Stats)
		if m.ExitCode != nil {
			fmt.Fprintf(&b, "exitcode:%d\n", *m.ExitCode)
		}
	}
	if m.ExitSig != 0 {
		fmt.Fprintf(&b, "exitsig:%d\n", m.ExitSig)
	}
	if m.Status != StatusOK {
		fmt.Fprintf(&b, "status:%s\n", m.Status)
	}
	if m.Message != "" {
		fmt.Fprintf(&b, "message:%s\n", m.Message)
	}
	if m.Killed {
		b.WriteString("killed:1\n")
		writeStats(&b, m.Stats)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeStats(b *strings.Builder, s *Stats) {
	if s == nil {
		return
	}
	ms := func(d time.Duration) string {
		n := d.Milliseconds()
		return fmt.Sprintf("%d.%03d", n/1000, n%1000)
	}
	fmt.Fprintf(b, "time:%s\ntime-wall:%s\nmax-rss:%d\ncsw-voluntary:%d\ncsw-forced:%d\n",
		ms(s.Time), ms(s.WallTime), s.MaxRSSKiB, s.CswVoluntary, s.CswForced)
	if s.CG && s.CgMemKiB != 0 {
		fmt.Fprintf(b, "cg-mem:%d\n", s.CgMemKiB)
	}
	if s.CG && s.CgOOMKilled {
		b.WriteString("cg-oom-killed:1\n")
	}
}
