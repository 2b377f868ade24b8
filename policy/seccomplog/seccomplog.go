// Package seccomplog finds which system call the seccomp filter killed a
// program for. The kernel tells it to no one the program's parent can
// ask: the siginfo of a seccomp kill goes to the killed thread, and the
// wait status says only SIGSYS. It does write a SECCOMP audit record for
// every kill (kernel.seccomp.actions_logged lists kill_process and
// kill_thread by default): to the kernel log when no audit daemon runs,
// to the audit daemon's log when one does. Reading either needs
// privilege: CAP_SYSLOG under kernel.dmesg_restrict=1, root for
// /var/log/audit.
package seccomplog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/go-seccomp-bpf/arch"
)

// Kill is one SECCOMP audit record of a process killed by SIGSYS.
type Kill struct {
	At   time.Time // the record's time (millisecond precision)
	UID  int       // the process's uid, as the host sees it
	PID  int       // as the host's pid namespace sees it
	Comm string
	Exe  string
	Arch string // "x86_64", "x32", "i386", or the audit arch in hex
	// Number is the call's number in Arch's table (the x32 bit removed).
	Number int
	// Name is the call's name; "" when the table has none.
	Name string
}

// Short is the call's bare name, or "#N" when the table has none (as
// omegajail's meta file writes it).
func (k Kill) Short() string {
	if k.Name == "" {
		return fmt.Sprintf("#%d", k.Number)
	}
	return k.Name
}

// String names the call: "getpid (i386 system call 20)".
func (k Kill) String() string {
	if k.Name == "" {
		return fmt.Sprintf("%s system call %d", k.Arch, k.Number)
	}
	return fmt.Sprintf("%s (%s system call %d)", k.Name, k.Arch, k.Number)
}

// Audit architecture numbers (linux/audit.h) and the x32 call bit.
const (
	auditArchX86_64 = 0xc000003e
	auditArchI386   = 0x40000003
	x32Bit          = 0x40000000
	sigsys          = 31
)

// Parse reads one line of the kernel log ("audit: type=1326
// audit(…): …") or of the audit log ("type=SECCOMP msg=audit(…): …").
// False if the line is not a record of a SIGSYS kill.
func Parse(line string) (Kill, bool) {
	if !strings.Contains(line, "type=1326 ") && !strings.Contains(line, "type=SECCOMP ") {
		return Kill{}, false
	}
	_, rest, ok := strings.Cut(line, "audit(")
	if !ok {
		return Kill{}, false
	}
	stamp, fields, ok := strings.Cut(rest, "): ")
	if !ok {
		return Kill{}, false
	}
	at, ok := parseStamp(stamp)
	if !ok {
		return Kill{}, false
	}
	f := map[string]string{}
	for _, kv := range strings.Fields(fields) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			f[k] = strings.Trim(v, `"`)
		}
	}
	if f["sig"] != strconv.Itoa(sigsys) {
		return Kill{}, false
	}
	auditArch, err1 := strconv.ParseUint(f["arch"], 16, 32)
	nr, err2 := strconv.ParseInt(f["syscall"], 10, 64)
	if err1 != nil || err2 != nil {
		return Kill{}, false
	}
	k := Kill{At: at, Comm: f["comm"], Exe: f["exe"]}
	k.UID, _ = strconv.Atoi(f["uid"])
	k.PID, _ = strconv.Atoi(f["pid"])
	k.Arch, k.Number, k.Name = callName(uint32(auditArch), int(nr))
	return k, true
}

// parseStamp reads "1733212345.678:901".
func parseStamp(s string) (time.Time, bool) {
	secs, _, _ := strings.Cut(s, ":")
	whole, frac, _ := strings.Cut(secs, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	ms, _ := strconv.ParseInt((frac + "000")[:3], 10, 64)
	return time.Unix(sec, ms*int64(time.Millisecond)), true
}

// callName names call nr of the audit architecture.
func callName(auditArch uint32, nr int) (abi string, number int, name string) {
	switch {
	case auditArch == auditArchX86_64 && nr&x32Bit != 0:
		nr &^= x32Bit
		return "x32", nr, arch.X32.SyscallNumbers[nr]
	case auditArch == auditArchX86_64:
		return "x86_64", nr, arch.X86_64.SyscallNumbers[nr]
	case auditArch == auditArchI386:
		return "i386", nr, arch.I386.SyscallNumbers[nr]
	}
	return fmt.Sprintf("arch %#x", auditArch), nr, ""
}

// Query selects records.
type Query struct {
	From, To time.Time // the window, inclusive
	// UID is the killed process's uid as the host sees it; -1: any.
	UID int
}

func (q Query) matches(k Kill) bool {
	return !k.At.Before(q.From) && !k.At.After(q.To) && (q.UID < 0 || k.UID == q.UID)
}

// Sources are the logs Find reads by default, in order: the kernel log,
// then the audit daemon's.
var Sources = []string{"/dev/kmsg", "/var/log/audit/audit.log"}

// ErrUnreadable is wrapped when none of the sources could be read.
var ErrUnreadable = errors.New("no log of seccomp kills is readable")

// Find returns the kills in the sources that q selects, from every source
// it can read. The error wraps ErrUnreadable, and names each source's
// failure, only when it could read none.
func Find(sources []string, q Query) ([]Kill, error) {
	var kills []Kill
	var errs []error
	read := 0
	for _, src := range sources {
		lines, err := readLog(src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read++
		for _, l := range lines {
			if k, ok := Parse(l); ok && q.matches(k) {
				kills = append(kills, k)
			}
		}
	}
	if read == 0 {
		reasons := make([]string, len(errs))
		for i, e := range errs {
			reasons[i] = e.Error()
		}
		return nil, fmt.Errorf("%w (%s)", ErrUnreadable, strings.Join(reasons, "; "))
	}
	return kills, nil
}

// Identify returns the kill of a run whose program died of SIGSYS in q's
// window: the record the logged kills agree on. It says why when it
// cannot: no readable log, no record, or records of different calls (runs
// killed at the same time).
func Identify(sources []string, q Query) (Kill, error) {
	kills, err := Find(sources, q)
	if err != nil {
		return Kill{}, err
	}
	if len(kills) == 0 {
		return Kill{}, errors.New("the kernel logged no seccomp kill in the run's time")
	}
	for _, k := range kills[1:] {
		if k.Arch != kills[0].Arch || k.Number != kills[0].Number {
			return Kill{}, fmt.Errorf("%d seccomp kills of different calls were logged in the run's time", len(kills))
		}
	}
	return kills[0], nil
}
