package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// procTimes is processor time by command name over a stretch of the bench,
// per lifecycle or test. A cgroup breakdown cannot be set beside another's
// when the same process sits in different cgroups (conmon is in the
// container's scope for a bare lifecycle and in the service's for podjail's
// container); a command name can.
type procTimes map[string]time.Duration

// aliveSuffix marks the time of processes alive across a stretch (the
// Podman service, systemd, kernel threads), read from /proc; a name
// without it is of processes that ended in it (the cleanup process, crun,
// conmon, the shim), read from their accounting records. The two count
// differently (/proc/PID/stat by the scheduler's clock, accounting in
// ticks, as /proc/stat), which an emulated host under load sets apart.
const aliveSuffix = " (alive)"

// procMeter splits the host's processor time by command, stretch by
// stretch: BSD process accounting (acct(2), version 3 records) for the
// processes that end, /proc/PID/stat for those that live on. It needs
// root (CAP_SYS_PACCT), and it takes the host's one accounting file for
// its own until stop: not for a host that keeps its own (psacct).
type procMeter struct {
	dir    string
	file   string
	k      int
	before map[int]procStat
}

type procStat struct {
	comm, start string
	ticks       int64
}

// errAccounting is acct(2) refused: not root, or no process accounting
// in the kernel.
var errAccounting = errors.New("process accounting cannot be switched on (it needs root and a kernel with BSD process accounting)")

func startProcMeter() (*procMeter, error) {
	dir, err := os.MkdirTemp("", "podjail-bench-acct-")
	if err != nil {
		return nil, err
	}
	m := &procMeter{dir: dir}
	if err := m.next(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	m.before = procSnapshot()
	return m, nil
}

// next points the accounting at a new, empty file.
func (m *procMeter) next() error {
	m.k++
	m.file = filepath.Join(m.dir, fmt.Sprintf("acct-%d", m.k))
	if err := os.WriteFile(m.file, nil, 0o600); err != nil {
		return err
	}
	if err := unix.Acct(m.file); err != nil {
		return fmt.Errorf("%w: %v", errAccounting, err)
	}
	return nil
}

// lap ends a stretch and begins the next: the processor time by command
// since the last lap (or the start), divided by n.
func (m *procMeter) lap(n int) (procTimes, error) {
	ended := m.file
	if err := m.next(); err != nil {
		return nil, err
	}
	now := procSnapshot()
	t, err := readAcct(ended)
	if err != nil {
		return nil, err
	}
	for pid, p := range now {
		if q, ok := m.before[pid]; ok && q.start == p.start {
			t[procName(p.comm)+aliveSuffix] += ticksToDuration(p.ticks - q.ticks)
		} else {
			t[procName(p.comm)+aliveSuffix] += ticksToDuration(p.ticks)
		}
	}
	m.before = now
	for k, v := range t {
		if v <= 0 {
			delete(t, k)
			continue
		}
		t[k] = v / time.Duration(n)
	}
	return t, os.Remove(ended)
}

// begin starts a stretch, dropping what came before it; end ends it with
// its time by command, per n. Both do nothing on a nil meter.
func (m *procMeter) begin() error {
	if m == nil {
		return nil
	}
	_, err := m.lap(1)
	return err
}

func (m *procMeter) end(n int) (procTimes, error) {
	if m == nil {
		return nil, nil
	}
	return m.lap(n)
}

// stop switches the accounting off and removes the meter's files.
func (m *procMeter) stop() {
	_ = unix.Acct("")
	os.RemoveAll(m.dir)
}

// procName groups kernel threads of one kind (kworker/0:1-events and
// kworker/u8:3 are "kworker").
func procName(comm string) string {
	name, _, _ := strings.Cut(comm, "/")
	return name
}

// ticksToDuration converts USER_HZ ticks (100 a second on Linux), the unit
// of /proc/PID/stat and of acct version 3's times.
func ticksToDuration(t int64) time.Duration { return time.Duration(t) * time.Second / 100 }

// procSnapshot reads every process's command and processor time.
func procSnapshot() map[int]procStat {
	m := map[int]procStat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProcStat(filepath.Join("/proc", e.Name(), "stat")); ok {
			m[pid] = p
		}
	}
	return m
}

// readProcStat reads one /proc/PID/stat: the command (between the first
// "(" and the last ")", as it may hold either), utime + stime, starttime.
func readProcStat(path string) (procStat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i || j+2 > len(s) {
		return procStat{}, false
	}
	f := strings.Fields(s[j+2:])
	if len(f) < 20 {
		return procStat{}, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{comm: s[i+1 : j], start: f[19], ticks: ut + st}, true
}

// acctV3Size is the size of struct acct_v3 (linux/acct.h).
const acctV3Size = 64

// acctFork is ac_flag's AFORK: the process was forked and never executed
// a program (a Go runtime's own check of clone's pidfd, a runtime's
// intermediate child), so its command is its parent's; its row says so.
const acctFork = 0x01

// Suffixes of an ended process's row: its user and its system time apart,
// so that a process's own code (a Go runtime's start, say) is told from
// the kernel's work it asks for (cgroups, mounts, seccomp).
const (
	userSuffix   = ", user"
	systemSuffix = ", system"
)

// readAcct sums utime and stime by command (userSuffix, systemSuffix) over
// an accounting file of version 3 records; a record of another version is
// an error (the kernel writes one version only).
func readAcct(path string) (procTimes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := procTimes{}
	for off := 0; off+acctV3Size <= len(b); off += acctV3Size {
		r := b[off : off+acctV3Size]
		if v := r[1] & 0x0f; v != 3 { // ac_version, ACORE aside
			return nil, fmt.Errorf("%s: accounting record of version %d, not 3", path, v)
		}
		name := procName(strings.TrimRight(string(r[48:64]), "\x00"))
		if r[0]&acctFork != 0 {
			name += " (no exec)"
		}
		t[name+userSuffix] += ticksToDuration(decodeComp(binary.LittleEndian.Uint16(r[32:])))
		t[name+systemSuffix] += ticksToDuration(decodeComp(binary.LittleEndian.Uint16(r[34:])))
	}
	return t, nil
}

// decodeComp decodes a comp_t: a 13-bit mantissa and a 3-bit base-8
// exponent.
func decodeComp(c uint16) int64 { return int64(c&0x1fff) << (3 * (c >> 13)) }

// benchProcs is --by-process's stretches at P = 1, each per lifecycle or
// test. Nil: not measured.
type benchProcs struct {
	Bare  procTimes `json:"bare_lifecycle"`
	Step  procTimes `json:"last_spec_step,omitempty"`
	Judge procTimes `json:"judge"`
}

// procsBeside ends the judge's stretch and sets it beside the floor's and
// the last spec step kept's.
func procsBeside(m *procMeter, n int, floor benchFloor, steps []specStep) (*benchProcs, error) {
	judge, err := m.end(n)
	if err != nil {
		return nil, err
	}
	p := &benchProcs{Bare: floor.Procs, Judge: judge}
	for _, s := range steps {
		if !s.Aside {
			p.Step = s.Procs
		}
	}
	return p, nil
}

// printProcs sets the judge's processor time by command beside a bare
// lifecycle's and the last spec step's: the rows any of them spent 5 ms
// or more on, the judge's largest first.
func printProcs(w io.Writer, p *benchProcs) {
	if p == nil {
		return
	}
	names := map[string]bool{}
	for _, t := range []procTimes{p.Bare, p.Step, p.Judge} {
		for k, v := range t {
			if v >= 5*time.Millisecond {
				names[k] = true
			}
		}
	}
	rows := make([]string, 0, len(names))
	for k := range names {
		rows = append(rows, k)
	}
	slices.SortFunc(rows, func(a, b string) int {
		if d := p.Judge[b] - p.Judge[a]; d != 0 {
			return int(d)
		}
		return strings.Compare(a, b)
	})
	sum := func(t procTimes) (s time.Duration) {
		for _, v := range t {
			s += v
		}
		return s
	}
	fmt.Fprintln(w, "by process, P = 1, per lifecycle or test: a bare lifecycle, the last spec step kept, a judge's test, the judge over the bare")
	fmt.Fprintln(w, "  (processes that ended: their accounting records, in ticks, user and system apart; \"(alive)\": /proc, by the scheduler's clock, which a busy emulated host runs ahead of ticks)")
	row := func(name string, b, s, j time.Duration) {
		step := "-"
		if p.Step != nil {
			step = benchMS(s)
		}
		fmt.Fprintf(w, "  %10s  %10s  %10s  %10s  %s\n", benchMS(b), step, benchMS(j), benchMSDiff(j-b), name)
	}
	for _, k := range rows {
		row(k, p.Bare[k], p.Step[k], p.Judge[k])
	}
	row("in all", sum(p.Bare), sum(p.Step), sum(p.Judge))
}
