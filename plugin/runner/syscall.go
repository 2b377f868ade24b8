package runner

import (
	"os"
	"time"

	"github.com/podjail/podjail/policy"
	"github.com/podjail/podjail/policy/seccomplog"
)

// logSlack widens a run's window when looking for its seccomp record: the
// record's clock has millisecond precision and the run's bounds are taken
// around Podman calls.
const logSlack = time.Second

// nameSyscall fills res.Syscall, or res.SyscallUnknown, from the kernel's
// records of seccomp kills between began and ended.
func (r *Runner) nameSyscall(res *RunResult, began, ended time.Time) {
	sources := r.SeccompLogs
	if sources == nil {
		sources = seccomplog.Sources
	}
	q := seccomplog.Query{From: began.Add(-logSlack), To: ended.Add(logSlack), UID: -1}
	// Rootful, the program's uid is the host's too; rootless, it is one of
	// the user's subordinate ids.
	if os.Geteuid() == 0 {
		q.UID = policy.NobodyUID
	}
	k, err := seccomplog.Identify(sources, q)
	if err != nil {
		res.SyscallUnknown = err.Error()
		r.log().Debug("the killed system call is not named", "reason", err)
		return
	}
	res.Syscall, res.SyscallName = k.String(), k.Short()
}
