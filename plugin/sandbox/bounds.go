package sandbox

// What one request may ask of a server: the largest limits a run may have,
// and a wall limit for every run. A request over a bound is refused, never
// clamped: a run given less than it asked for would be judged on limits its
// caller did not set, and its verdict would be wrong without anyone seeing
// why. What one caller may hold at once (calls, handles) is shares.go's.

import (
	"fmt"
	"runtime"
	"time"
)

// Bounds are what one request, and one caller, may take of a Server
// (ServerOptions.Bounds; podjail serve's --max-* flags, docs/service.md's
// "Limits"). Each zero field takes its default, chosen above what the
// judges and fronts podjail serves ask for (CMS, Judge0, omegaUp, the test
// suite), so that the plugin a judge starts for itself keeps working.
type Bounds struct {
	// MaxMemory is the largest memory limit, in bytes, a Run or Exec may
	// ask for, and a judged problem may have (its stack too). Zero value:
	// DefaultMaxMemory.
	MaxMemory int64
	// MaxPids is the most tasks an Exec may ask for. Zero value:
	// DefaultMaxPids.
	MaxPids int64
	// MaxCPUs is the largest CPU quota, in cores, an Exec may ask for.
	// Zero value: DefaultMaxCPUs.
	MaxCPUs float64
	// MaxTime is the largest time limit (Limits.Time, and Exec's
	// CPULimit) a run may ask for, and a judged problem may have. Zero
	// value: DefaultMaxTime.
	MaxTime time.Duration
	// MaxWall is the largest wall limit (Limits.Wall) a run may ask for.
	// Zero value: DefaultMaxWall.
	MaxWall time.Duration
	// DefaultWall is the wall limit of a run that asks for none and has no
	// time limit to derive one from (a Run without Wall; an Exec without
	// Time or Wall), so that no run lives for ever. Zero value:
	// DefaultWallLimit.
	DefaultWall time.Duration
	// MaxFileSize is the largest FileSize an Exec may ask for. Zero
	// value: DefaultMaxFileSize.
	MaxFileSize int64
	// MaxCollect is the most bytes of files one Exec gives back
	// (Collect), all of them together: the server holds them in memory
	// while it sends them. Zero value: DefaultMaxCollect.
	MaxCollect int64
	// MaxHandles is how many handles (Compile's artefacts) one caller may
	// keep at once. Zero value: DefaultMaxHandles.
	MaxHandles int
	// MaxCalls is how many Compile, Run, Exec and Judge calls may be under
	// way at once, all callers together. Zero value: DefaultMaxCalls().
	MaxCalls int
	// MaxCallsPerCaller is how many of them one caller (a uid) may have
	// under way at once. Zero value: half of MaxCalls (at least 1), so
	// that one caller leaves the others at least half.
	MaxCallsPerCaller int
}

// The defaults of Bounds' zero fields, and why each is what it is.
const (
	// CMS asks 4 GiB for its trusted sandboxes (a Communication task's
	// manager); twice that leaves room and still stops a pebibyte.
	DefaultMaxMemory = 8 << 30
	// The isolate front's -p without a number (isolate's "unlimited").
	DefaultMaxPids = 4096
	DefaultMaxCPUs = 4
	// Judge0 and omegaUp compile with 30 s of processor time.
	DefaultMaxTime = time.Minute
	// The isolate front's longest -w seen (600 s); a run at MaxTime
	// gets 5(L + 2 s), 310 s, from the judge's deadlines.
	DefaultMaxWall   = 10 * time.Minute
	DefaultWallLimit = 5 * time.Minute
	// CMS gives its sandboxes -f 1 GiB.
	DefaultMaxFileSize = 1 << 30
	// A compile's artefacts (a static binary, a jar) are megabytes.
	DefaultMaxCollect = 64 << 20
	// A judge keeps a handle per submission under way (and a checker's).
	DefaultMaxHandles = 128
)

// DefaultMaxCalls is Bounds.MaxCalls's default: 4 calls a core, at least
// 16. A host's judges run about one call a core (CMS and Judge0 a worker
// a core, each one isolate run at a time); twice that again for a
// Communication task's runs side by side.
func DefaultMaxCalls() int { return max(16, 4*runtime.NumCPU()) }

// What a run that asks for none of a limit gets (sandbox.Limits and
// ExecRequest say so too): the runner's defaults, repeated here since the
// client package does not link the runner (TestClientPackageStaysLight);
// engine's tests check they are the runner's. Bounds below them would
// refuse a request that asks for nothing.
const (
	requestMemory = 256 << 20
	requestPids   = 64
	requestCPUs   = 1
)

// WithDefaults is b with each zero field's default.
func (b Bounds) WithDefaults() Bounds {
	or := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	b.MaxMemory = or(b.MaxMemory, DefaultMaxMemory)
	b.MaxPids = or(b.MaxPids, DefaultMaxPids)
	b.MaxFileSize = or(b.MaxFileSize, DefaultMaxFileSize)
	b.MaxCollect = or(b.MaxCollect, DefaultMaxCollect)
	b.MaxTime = time.Duration(or(int64(b.MaxTime), int64(DefaultMaxTime)))
	b.MaxWall = time.Duration(or(int64(b.MaxWall), int64(DefaultMaxWall)))
	b.DefaultWall = time.Duration(or(int64(b.DefaultWall), int64(DefaultWallLimit)))
	b.MaxHandles = int(or(int64(b.MaxHandles), DefaultMaxHandles))
	b.MaxCalls = int(or(int64(b.MaxCalls), int64(DefaultMaxCalls())))
	b.MaxCallsPerCaller = int(or(int64(b.MaxCallsPerCaller), int64(max(1, b.MaxCalls/2))))
	if b.MaxCPUs == 0 {
		b.MaxCPUs = DefaultMaxCPUs
	}
	return b
}

// Check says what is wrong with b as an operator gave it (b with its
// defaults): a negative bound, a bound below what a request asking for
// nothing gets, a default wall over the largest.
func (b Bounds) Check() error {
	b = b.WithDefaults()
	switch {
	case b.MaxMemory < requestMemory:
		return fmt.Errorf("--max-memory %s: want at least %s, what a run asking for no memory limit gets", sizeText(b.MaxMemory), sizeText(requestMemory))
	case b.MaxPids < requestPids:
		return fmt.Errorf("--max-pids %d: want at least %d, what a run asking for no pids limit gets", b.MaxPids, requestPids)
	case b.MaxCPUs < requestCPUs:
		return fmt.Errorf("--max-cpus %g: want at least %d, what a run asking for no CPU quota gets", b.MaxCPUs, requestCPUs)
	case b.MaxTime < 0, b.MaxWall < 0, b.DefaultWall < 0, b.MaxFileSize < 0, b.MaxCollect < 0:
		return fmt.Errorf("the limits must not be negative")
	case b.DefaultWall > b.MaxWall:
		return fmt.Errorf("--default-wall %v is over --max-wall %v", b.DefaultWall, b.MaxWall)
	case b.MaxHandles < 1, b.MaxCalls < 1, b.MaxCallsPerCaller < 1:
		return fmt.Errorf("--max-handles, --max-calls and --max-calls-per-caller: want at least 1")
	case b.MaxCallsPerCaller > b.MaxCalls:
		return fmt.Errorf("--max-calls-per-caller %d is over --max-calls %d", b.MaxCallsPerCaller, b.MaxCalls)
	}
	return nil
}

// runLimits are the limits a Run of a handle gets for l: l, with the
// default wall when it asks for none (its time is a processor ceiling,
// which a program that sleeps never reaches), or why it may not have them.
func (b Bounds) runLimits(l Limits) (Limits, error) {
	if l.Time < 0 || l.Memory < 0 || l.Output < 0 || l.Wall < 0 {
		return l, invalid("run: limits must not be negative")
	}
	if err := b.overAny("run",
		overMemory(l.Memory, b.MaxMemory, "memory"),
		overTime(l.Time, b.MaxTime, "time", "--max-time"),
		overTime(l.Wall, b.MaxWall, "wall", "--max-wall"),
	); err != nil {
		return l, err
	}
	if l.Wall == 0 {
		l.Wall = b.DefaultWall
	}
	return l, nil
}

// execLimits is x with the default wall when it asks for neither a time
// limit (whose deadlines include a wall) nor a wall, or why it may not
// run: a limit over its bound. x has passed check.
func (b Bounds) execLimits(x ExecRequest) (ExecRequest, error) {
	l := x.Limits
	if err := b.overAny("exec",
		overMemory(l.Memory, b.MaxMemory, "memory"),
		overMemory(x.Stack, b.MaxMemory, "stack"),
		overCount(x.Pids, b.MaxPids, "pids", "--max-pids"),
		overCPUs(x.CPUs, b.MaxCPUs),
		overTime(l.Time, b.MaxTime, "time", "--max-time"),
		overTime(x.CPULimit, b.MaxTime, "processor time limit", "--max-time"),
		overTime(l.Wall, b.MaxWall, "wall", "--max-wall"),
		overSize(x.FileSize, b.MaxFileSize, "file size", "--max-file-size"),
	); err != nil {
		return x, err
	}
	if l.Time == 0 && l.Wall == 0 {
		x.Limits.Wall = b.DefaultWall
	}
	return x, nil
}

// CheckJudge says whether a problem with time limit limit (its own,
// without a language's extra time, which is the operator's table) and
// memory limit memory may be judged: nil, or an ErrInvalidArgument naming
// the flag that raises the bound. A problem package is the caller's, as a
// request's limits are.
func (b Bounds) CheckJudge(memory int64, limit time.Duration) error {
	b = b.WithDefaults()
	return b.overAny("judge: the problem's",
		overMemory(memory, b.MaxMemory, "memory limit"),
		overTime(limit, b.MaxTime, "time limit", "--max-time"),
	)
}

// CollectError is the error of an Exec whose files to give back come to
// total bytes, over MaxCollect (with its default); nil when they fit.
func (b Bounds) CollectError(total int64) error {
	b = b.WithDefaults()
	if total <= b.MaxCollect {
		return nil
	}
	return Mark(fmt.Errorf("exec: the files to collect come to more than this service gives back for one call, %s (--max-collect of podjail serve): collect fewer or smaller files", sizeText(b.MaxCollect)), ErrResourceExhausted)
}

// overAny is the first of the reasons that is not "", as the refusal of a
// call named what; nil if none.
func (Bounds) overAny(what string, reasons ...string) error {
	for _, r := range reasons {
		if r != "" {
			return invalid(what + ": " + r)
		}
	}
	return nil
}

// The reasons a value asked for is over its bound: "" when it is not
// (zero always fits: it takes a default that does), else what was asked,
// the bound and the flag of podjail serve that raises it.

func overMemory(asked, bound int64, what string) string {
	return overSize(asked, bound, what, "--max-memory")
}

func overSize(asked, bound int64, what, flag string) string {
	if asked <= bound {
		return ""
	}
	return overText(what, sizeText(asked), sizeText(bound), flag)
}

func overCount(asked, bound int64, what, flag string) string {
	if asked <= bound {
		return ""
	}
	return overText(what, fmt.Sprint(asked), fmt.Sprint(bound), flag)
}

func overCPUs(asked, bound float64) string {
	if asked <= bound {
		return ""
	}
	return overText("CPUs", fmt.Sprintf("%g", asked), fmt.Sprintf("%g", bound), "--max-cpus")
}

func overTime(asked, bound time.Duration, what, flag string) string {
	if asked <= bound {
		return ""
	}
	return overText(what, asked.String(), bound.String(), flag)
}

func overText(what, asked, bound, flag string) string {
	return fmt.Sprintf("%s %s is over this service's largest, %s: ask for less, or start the service with a larger %s", what, asked, bound, flag)
}

// sizeText writes n bytes in the largest binary unit that divides it,
// as podjail's flags take them ("8 GiB", "1536 KiB", "10 bytes").
func sizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
