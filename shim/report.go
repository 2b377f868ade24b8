package shim

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReportPrefix starts the report line: "podjail-report <nonce> <json>\n".
const ReportPrefix = "podjail-report"

// Report is the shim's account of one run, the JSON of the report line.
type Report struct {
	TimeUs int64 `json:"time_us"` // user_us + sys_us
	UserUs int64 `json:"user_us"` // wait4 rusage of the program (and the children it waited for)
	SysUs  int64 `json:"sys_us"`  //
	// The program cgroup's cpu.stat, read once every process in it is
	// dead: every process of the program, waited for or not, and nothing
	// of the shim's or the container's. Zero in an older shim's report.
	CgroupUs     int64  `json:"cgroup_us"`      // usage_usec
	CgroupUserUs int64  `json:"cgroup_user_us"` // user_usec
	CgroupSysUs  int64  `json:"cgroup_sys_us"`  // system_usec
	PeakBytes    int64  `json:"peak_bytes"`     // memory.peak of the program cgroup
	PidsPeak     int64  `json:"pids_peak"`      // pids.peak of the program cgroup; -1 if the kernel has none
	ExitCode     int    `json:"exit_code"`      // the program's exit status; -1 if a signal ended it or it never ran
	Signal       string `json:"signal"`         // e.g. "SIGSEGV"; "" unless a signal ended it
	OOM          int64  `json:"oom"`            // memory.events "oom" of the program cgroup
	OOMKill      int64  `json:"oom_kill"`       // memory.events "oom_kill" of the program cgroup
	Reaped       int    `json:"reaped"`         // other processes reaped: orphans that ended during the run and all killed after it
	Error        string `json:"error,omitempty"`
	Step         Step   `json:"step,omitempty"`
}

// FormatReport renders the report line, newline included.
func FormatReport(nonce string, r Report) []byte {
	j, err := json.Marshal(r)
	if err != nil { // cannot happen: only strings and integers
		panic(err)
	}
	line := make([]byte, 0, len(ReportPrefix)+len(nonce)+len(j)+3)
	line = append(line, ReportPrefix+" "+nonce+" "...)
	line = append(line, j...)
	return append(line, '\n')
}

// ParseReport finds the shim's report in a container's stderr: the last line that is
// "podjail-report <nonce> <json>" with this nonce and well-formed JSON. Other lines,
// and lines with another nonce (forged ones), are ignored. False if there is none.
func ParseReport(stderr []byte, nonce string) (Report, bool) {
	var found Report
	ok := false
	if nonce == "" {
		return found, false
	}
	for _, line := range bytes.Split(stderr, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		rest, isReport := bytes.CutPrefix(line, []byte(ReportPrefix+" "))
		if !isReport {
			continue
		}
		got, js, _ := bytes.Cut(rest, []byte(" "))
		if subtle.ConstantTimeCompare(got, []byte(nonce)) != 1 {
			continue
		}
		var r Report
		if !bytes.HasPrefix(js, []byte("{")) || json.Unmarshal(js, &r) != nil {
			continue
		}
		found, ok = r, true
	}
	return found, ok
}

// Status is the exit status of the shim that wrote r (see the package's exit
// status): ExitFailure on a failure of its own, else the program's code, or
// 128+N when signal N ended it.
func (r Report) Status() int {
	switch {
	case r.Error != "":
		return ExitFailure
	case r.Signal != "":
		if n := SignalNumber(r.Signal); n > 0 {
			return 128 + n
		}
		return ExitFailure
	}
	return r.ExitCode
}

// SignalNumber is the number of the signal a report names: its name in
// the kernel's table ("SIGSEGV"), or "SIG<n>" for one the table does not
// name (a real-time signal: "SIG34"); 0 for neither.
func SignalNumber(name string) int {
	if n := int(unix.SignalNum(name)); n > 0 {
		return n
	}
	if v, ok := strings.CutPrefix(name, "SIG"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 65 {
			return n
		}
	}
	return 0
}

// SignalName is how a report names signal n: the kernel table's name, or
// "SIG<n>" (SignalNumber reads both back).
func SignalName(n syscall.Signal) string {
	if s := unix.SignalName(n); s != "" {
		return s
	}
	return fmt.Sprintf("SIG%d", int(n))
}
