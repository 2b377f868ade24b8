package sandbox

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/podjail/podjail/plugin/sandbox/proto/podjail/v1"
	"github.com/podjail/podjail/plugin/verdict"
	"github.com/podjail/podjail/shim"
)

// Conversions between the Go types and the messages, one pair a type.

var verdictToPB = map[Verdict]pb.Verdict{
	AC: pb.Verdict_VERDICT_AC, WA: pb.Verdict_VERDICT_WA, PE: pb.Verdict_VERDICT_PE,
	PA: pb.Verdict_VERDICT_PA, TLE: pb.Verdict_VERDICT_TLE, MLE: pb.Verdict_VERDICT_MLE,
	OLE: pb.Verdict_VERDICT_OLE, RTE: pb.Verdict_VERDICT_RTE, RFE: pb.Verdict_VERDICT_RFE,
	CE: pb.Verdict_VERDICT_CE, IE: pb.Verdict_VERDICT_IE, CF: pb.Verdict_VERDICT_CF,
}

var verdictFromPB = func() map[pb.Verdict]Verdict {
	m := make(map[pb.Verdict]Verdict, len(verdictToPB))
	for v, p := range verdictToPB {
		m[p] = v
	}
	return m
}()

// Verdicts lists every verdict, in the order of the enum.
func Verdicts() []Verdict { return verdict.All() }

func verdictPB(v Verdict) pb.Verdict { return verdictToPB[v] } // unknown: UNSPECIFIED

func verdictGo(v pb.Verdict) Verdict {
	if g, ok := verdictFromPB[v]; ok {
		return g
	}
	return "" // UNSPECIFIED, or a verdict newer than this client
}

var killedToPB = map[string]pb.KillReason{
	"":                pb.KillReason_KILL_REASON_UNSPECIFIED,
	KilledOutputLimit: pb.KillReason_KILL_REASON_OUTPUT_LIMIT,
	KilledWallLimit:   pb.KillReason_KILL_REASON_WALL_LIMIT,
	KilledTimeLimit:   pb.KillReason_KILL_REASON_TIME_LIMIT,
	KilledIdle:        pb.KillReason_KILL_REASON_IDLE,
}

func killedPB(k string) pb.KillReason {
	if p, ok := killedToPB[k]; ok {
		return p
	}
	return pb.KillReason_KILL_REASON_OTHER
}

func killedGo(p pb.KillReason) string {
	for k, v := range killedToPB {
		if v == p {
			return k
		}
	}
	return "stopped" // OTHER: the note says why
}

func dur(d time.Duration) *durationpb.Duration { return durationpb.New(d) }

func goDur(d *durationpb.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.AsDuration()
}

func capabilitiesPB(c Capabilities) *pb.CapabilitiesResponse {
	out := &pb.CapabilitiesResponse{
		PodjailVersion:  c.Version,
		ProtocolVersion: uint32(c.ProtocolVersion),
		Host: &pb.Host{
			Rootless:      c.Host.Rootless,
			CgroupManager: c.Host.CgroupManager,
			ShimPresent:   c.Host.Shim,
			PodmanVersion: c.Host.PodmanVersion,
		},
	}
	for _, l := range c.Languages {
		out.Languages = append(out.Languages, &pb.Language{
			Id: l.ID, Name: l.Name, Aliases: l.Aliases, Extensions: l.Extensions, Compiled: l.Compiled,
		})
	}
	return out
}

func capabilitiesGo(p *pb.CapabilitiesResponse) Capabilities {
	c := Capabilities{Version: p.GetPodjailVersion(), ProtocolVersion: int(p.GetProtocolVersion())}
	if h := p.GetHost(); h != nil {
		c.Host = Host{Rootless: h.GetRootless(), CgroupManager: h.GetCgroupManager(), Shim: h.GetShimPresent(), PodmanVersion: h.GetPodmanVersion()}
	}
	for _, l := range p.GetLanguages() {
		c.Languages = append(c.Languages, Language{
			ID: l.GetId(), Name: l.GetName(), Aliases: l.GetAliases(), Extensions: l.GetExtensions(), Compiled: l.GetCompiled(),
		})
	}
	return c
}

func buildPB(b Build) *pb.Build {
	return &pb.Build{Ok: b.OK, Output: b.Output, Note: b.Note, Time: dur(b.Time), PeakBytes: b.Peak}
}

func buildGo(p *pb.Build) Build {
	if p == nil {
		return Build{Peak: -1}
	}
	return Build{OK: p.GetOk(), Output: p.GetOutput(), Note: p.GetNote(), Time: goDur(p.GetTime()), Peak: p.GetPeakBytes()}
}

func limitsPB(l Limits) *pb.Limits {
	return &pb.Limits{Time: dur(l.Time), MemoryBytes: l.Memory, OutputBytes: l.Output, Wall: dur(l.Wall)}
}

func limitsGo(p *pb.Limits) Limits {
	return Limits{Time: goDur(p.GetTime()), Memory: p.GetMemoryBytes(), Output: p.GetOutputBytes(), Wall: goDur(p.GetWall())}
}

func runResultPB(r RunResult) *pb.RunResponse {
	return &pb.RunResponse{
		ExitCode:        r.ExitCode,
		Signal:          r.Signal,
		Killed:          killedPB(r.Killed),
		KilledNote:      r.KilledNote,
		Time:            dur(r.Time),
		PeakBytes:       r.Peak,
		MemoryExceeded:  r.MemoryExceeded,
		Output:          r.Output,
		OutputBytes:     r.OutputBytes,
		OutputTruncated: r.OutputTruncated,
		TimeFrom:        r.TimeFrom,
		PeakFrom:        r.PeakFrom,
		MemoryFrom:      r.MemoryFrom,
		Wall:            dur(r.Wall),
	}
}

func runResultGo(p *pb.RunResponse) RunResult {
	return RunResult{
		ExitCode:        p.GetExitCode(),
		Signal:          p.GetSignal(),
		Killed:          killedGo(p.GetKilled()),
		KilledNote:      p.GetKilledNote(),
		Time:            goDur(p.GetTime()),
		Peak:            p.GetPeakBytes(),
		MemoryExceeded:  p.GetMemoryExceeded(),
		Output:          p.GetOutput(),
		OutputBytes:     p.GetOutputBytes(),
		OutputTruncated: p.GetOutputTruncated(),
		TimeFrom:        p.GetTimeFrom(),
		PeakFrom:        p.GetPeakFrom(),
		MemoryFrom:      p.GetMemoryFrom(),
		Wall:            goDur(p.GetWall()),
	}
}

func testPB(t TestResult) *pb.TestResult {
	return &pb.TestResult{
		Index: int32(t.Index), Total: int32(t.Total), Name: t.Name, Sample: t.Sample,
		Verdict: verdictPB(t.Verdict), Note: t.Note, Time: dur(t.Time), PeakBytes: t.Peak, Points: t.Points,
	}
}

func testGo(p *pb.TestResult) TestResult {
	return TestResult{
		Index: int(p.GetIndex()), Total: int(p.GetTotal()), Name: p.GetName(), Sample: p.GetSample(),
		Verdict: verdictGo(p.GetVerdict()), Note: p.GetNote(), Time: goDur(p.GetTime()), Peak: p.GetPeakBytes(), Points: p.GetPoints(),
	}
}

func judgeResultPB(r JudgeResult) *pb.JudgeResult {
	out := &pb.JudgeResult{Verdict: verdictPB(r.Verdict), Note: r.Note, Build: buildPB(r.Build), Tests: int32(len(r.Tests))}
	if r.Checker != nil {
		out.CheckerBuild = buildPB(*r.Checker)
	}
	return out
}

// judgeResultGo converts the final event; the tests come from the events
// before it.
func judgeResultGo(p *pb.JudgeResult, tests []TestResult) JudgeResult {
	out := JudgeResult{Verdict: verdictGo(p.GetVerdict()), Note: p.GetNote(), Build: buildGo(p.GetBuild()), Tests: tests}
	if p.GetCheckerBuild() != nil {
		b := buildGo(p.GetCheckerBuild())
		out.Checker = &b
	}
	return out
}

func execResultPB(r ExecResult) *pb.ExecResult {
	return &pb.ExecResult{Run: runResultPB(r.Run), Verdict: verdictPB(r.Verdict), VerdictNote: r.VerdictNote,
		Container: r.Container, ReportJson: r.Report}
}

func execResultGo(p *pb.ExecResult) ExecResult {
	return ExecResult{Run: runResultGo(p.GetRun()), Verdict: verdictGo(p.GetVerdict()), VerdictNote: p.GetVerdictNote(),
		Container: p.GetContainer(), Report: p.GetReportJson()}
}

// execRequestPB is what the client sends of req: everything but the
// readers and writers, which travel as stream messages. A request no run
// could do is refused here, before anything is sent.
func execRequestPB(req ExecRequest) (*pb.ExecRequest, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	p := &pb.ExecRequest{Image: req.Image, Command: req.Command, InputPath: req.InputPath,
		Limits: limitsPB(req.Limits), Pids: req.Pids, Cpus: req.CPUs, WorkDir: req.WorkDir, Env: req.Env,
		CpuLimit: dur(req.CPULimit), FileSizeBytes: req.FileSize, StackBytes: req.Stack, MemoryExitCode: int32(req.MemoryExitCode),
		Collect: req.Collect, Writable: req.Writable, Tasks: req.Tasks}
	for _, name := range slices.Sorted(maps.Keys(req.Files)) {
		p.Files = append(p.Files, &pb.File{Name: name, Data: req.Files[name]})
	}
	for _, b := range req.Binds {
		p.Binds = append(p.Binds, &pb.Bind{Source: b.Source, Destination: b.Destination, Writable: b.Writable})
	}
	switch {
	case req.Stdin != nil && req.StdinWhole:
		p.Stdin = pb.StdinFrom_STDIN_FROM_UPLOAD
	case req.Stdin != nil:
		p.Stdin = pb.StdinFrom_STDIN_FROM_STREAM
	}
	switch {
	case req.StderrToStdout:
		p.Stderr = pb.StderrTo_STDERR_TO_STDOUT
	case req.StderrPath != "":
		p.Stderr, p.StderrPath = pb.StderrTo_STDERR_TO_FILE, req.StderrPath
	case req.Stderr != nil:
		p.Stderr = pb.StderrTo_STDERR_TO_CALLER
	}
	return p, nil
}

// execRequestGo is the server's reading of p, refused if no run could do
// it (the same check as the client's: the server trusts no client); the
// server fills in Stdin and Stderr from the stream.
func execRequestGo(p *pb.ExecRequest) (ExecRequest, error) {
	x := ExecRequest{Image: p.GetImage(), Command: p.GetCommand(), InputPath: p.GetInputPath(),
		Limits: limitsGo(p.GetLimits()), Pids: p.GetPids(), CPUs: p.GetCpus(), WorkDir: p.GetWorkDir(), Env: p.GetEnv(),
		CPULimit: goDur(p.GetCpuLimit()), FileSize: p.GetFileSizeBytes(), Stack: p.GetStackBytes(), MemoryExitCode: int(p.GetMemoryExitCode()),
		StderrToStdout: p.GetStderr() == pb.StderrTo_STDERR_TO_STDOUT, Collect: p.GetCollect(), Writable: p.GetWritable(), Tasks: p.GetTasks()}
	for _, f := range p.GetFiles() {
		if x.Files == nil {
			x.Files = map[string][]byte{}
		}
		x.Files[f.GetName()] = f.GetData()
	}
	if p.GetStderr() == pb.StderrTo_STDERR_TO_FILE {
		x.StderrPath = p.GetStderrPath()
	}
	for _, b := range p.GetBinds() {
		x.Binds = append(x.Binds, Bind{Source: b.GetSource(), Destination: b.GetDestination(), Writable: b.GetWritable()})
	}
	return x, x.check()
}

// check refuses what no run could do.
func (x ExecRequest) check() error {
	l := x.Limits
	switch {
	case x.Image == "":
		return invalid("exec: no image")
	case len(x.Command) == 0:
		return invalid("exec: no command")
	case l.Time < 0 || l.Memory < 0 || l.Output < 0 || l.Wall < 0 || x.Pids < 0 || x.CPUs < 0 ||
		x.CPULimit < 0 || x.FileSize < 0 || x.Stack < 0:
		return invalid("exec: limits must not be negative")
	case x.Stdin != nil && x.InputPath != "":
		return invalid("exec: both an input file and stdin to send")
	case btoi(x.StderrToStdout)+btoi(x.StderrPath != "")+btoi(x.Stderr != nil) > 1:
		return invalid("exec: stderr can go to one place only")
	case len(x.Files) > 0 && (x.Stdin != nil || x.InputPath != ""):
		return invalid("exec: files to put in and stdin are exclusive (the program's stdin is empty when files are put in)")
	case (len(x.Files) > 0 || len(x.Collect) > 0) && !path.IsAbs(x.WorkDir):
		return invalid("exec: files to put in or collect need an absolute work_dir, where they go")
	case len(x.Files) > MaxFiles || len(x.Collect) > MaxFiles:
		return invalid(fmt.Sprintf("exec: at most %d files to put in and %d to collect", MaxFiles, MaxFiles))
	}
	for _, name := range append(slices.Collect(maps.Keys(x.Files)), x.Collect...) {
		if err := shim.CheckFileName(name); err != nil {
			return invalid("exec: files: " + err.Error())
		}
	}
	for _, b := range x.Binds {
		if !filepath.IsAbs(b.Source) || !filepath.IsAbs(b.Destination) {
			return invalid(fmt.Sprintf("exec: bind %s:%s: both paths must be absolute", b.Source, b.Destination))
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
