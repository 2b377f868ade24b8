package shim

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"

	"golang.org/x/sys/unix"
)

// ReportPrefix starts the report line: "podjail-report <nonce> <json>\n".
const ReportPrefix = "podjail-report"

// Report is the shim's account of one run, the JSON of the report line.
type Report struct {
	TimeUs    int64  `json:"time_us"`    // user_us + sys_us
	UserUs    int64  `json:"user_us"`    // wait4 rusage of the program (and the children it waited for)
	SysUs     int64  `json:"sys_us"`     //
	PeakBytes int64  `json:"peak_bytes"` // memory.peak of the program cgroup
	PidsPeak  int64  `json:"pids_peak"`  // pids.peak of the program cgroup; -1 if the kernel has none
	ExitCode  int    `json:"exit_code"`  // the program's exit status; -1 if a signal ended it or it never ran
	Signal    string `json:"signal"`     // e.g. "SIGSEGV"; "" unless a signal ended it
	OOM       int64  `json:"oom"`        // memory.events "oom" of the program cgroup
	OOMKill   int64  `json:"oom_kill"`   // memory.events "oom_kill" of the program cgroup
	Reaped    int    `json:"reaped"`     // other processes reaped: orphans that ended during the run and all killed after it
	Error     string `json:"error,omitempty"`
	Step      Step   `json:"step,omitempty"`
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
		if n := signalNumber(r.Signal); n > 0 {
			return 128 + n
		}
		return ExitFailure
	}
	return r.ExitCode
}

func signalNumber(name string) int { return int(unix.SignalNum(name)) }
