package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/sandbox"
)

// exitRejected is podjail judge's exit code for a judged submission that
// is not accepted (any verdict of the submission's own).
const exitRejected = 3

// judgeFlags are podjail judge's flags.
type judgeFlags struct {
	url, langName, langFile, shim, service *string
	stopFirst, asJSON, retryIE             *bool
	parallel                               *int
}

func newJudgeCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judge [flags] PROBLEM_DIR SOURCE",
		Short: "build a submission and judge it on every test of a problem",
		Long:  "Builds SOURCE and judges it on every test of the problem in PROBLEM_DIR.",
		Args:  exactArgs(2, "PROBLEM_DIR SOURCE"),
	}
	fs := cmd.Flags()
	var f judgeFlags
	f.url = urlFlag(fs)
	f.langName = fs.String("lang", "", "the submission's `language` (default: from SOURCE's extension)")
	f.langFile = fs.String("languages", "", languagesUsage)
	f.shim = fs.String("shim", "", shimUsage)
	f.stopFirst = fs.Bool("stop-on-first-failure", false, "stop after the first test that is not AC")
	f.asJSON = fs.Bool("json", false, "print the judgement as JSON on stdout")
	f.service = serviceFlag(fs)
	f.retryIE = fs.Bool("retry-ie", false, "judge a test that ended IE (a failure of the host or of podjail) once more on a fresh container before stopping")
	f.parallel = fs.Int("parallel", 0, "how many tests run at once, each on a core of its own (default: one per core podjail may use; 1: one after the other)")
	cmd.RunE = c.onHost(func(ctx context.Context, args []string, log hclog.Logger) int {
		return judge(ctx, f, args[0], args[1], c.stdout, c.stderr, log)
	})
	return cmd
}

// judge is podjail judge once its flags are read.
func judge(ctx context.Context, f judgeFlags, problemDir, sourcePath string, stdout, stderr io.Writer, log hclog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "podjail judge: %v\n", err)
		return code
	}
	prob, err := problem.Load(problemDir)
	if err != nil {
		return fail(exitUsage, err)
	}
	source, err := os.ReadFile(sourcePath)
	if err != nil {
		return fail(exitUsage, err)
	}
	j, code, err := openJudger(ctx, f, log)
	if err != nil {
		return fail(code, err)
	}
	defer j.close()
	l, err := j.language(*f.langName, sourcePath, prob)
	if err != nil {
		return fail(exitUsage, err)
	}
	progress := newProgress(stderr, isTerminal(stderr))
	res, err := j.judge(ctx, prob, l, source, *f.stopFirst, progress, stderr, log)
	progress.done()
	if err != nil {
		return fail(errCode(err), err)
	}
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printJudgement(stdout, res)
	}
	switch res.Verdict {
	case plugin.AC:
		return exitOK
	case plugin.IE, plugin.CF:
		return exitFailure
	}
	return exitRejected
}

// judger judges submissions as podjail judge's flags say: in this process
// (its Runner) or through a service (svc).
type judger struct {
	f      judgeFlags
	svc    *sandbox.Client
	runner *plugin.Runner
	table  *lang.Table
	close  func()
}

// openJudger makes a judger from f; on error, the exit code to give.
func openJudger(ctx context.Context, f judgeFlags, log hclog.Logger) (*judger, int, error) {
	j := &judger{f: f, table: lang.Default(), close: func() {}}
	svc, closeSvc, err := dialService(ctx, *f.service, log)
	if err != nil {
		return nil, exitFailure, err
	}
	if svc != nil {
		if *f.langFile != "" {
			closeSvc()
			return nil, exitUsage, errors.New("--languages does not apply through a service, whose table is its own (podjail serve --languages); --service none judges here")
		}
		j.svc, j.close = svc, func() { closeSvc() }
		return j, exitOK, nil
	}
	if *f.langFile != "" {
		if j.table, err = lang.Load(*f.langFile); err != nil {
			return nil, exitUsage, err
		}
	}
	return j, exitOK, nil
}

// inProcess makes the judger's Runner, once.
func (j *judger) inProcess(ctx context.Context, log hclog.Logger) error {
	if j.runner != nil {
		return nil
	}
	shimPath, err := findShim(*j.f.shim)
	if err != nil {
		return &runner.RequestError{Field: "shim", Err: err}
	}
	if shimPath == "" {
		return &runner.RequestError{Field: "shim", Err: errors.New("judging needs podjail-shim: put it beside podjail or pass --shim")}
	}
	if j.runner, err = newRunner(ctx, *j.f.url, shimPath, log); err != nil {
		return err
	}
	j.close = func() { j.runner.Close(context.WithoutCancel(ctx)) }
	return nil
}

// language is the submission's language: name (--lang), else the one
// prob's format names for sourcePath's extension (Kattis: .c is GNU C),
// else the table's for it. Through a service, a name is the service's to
// look up.
func (j *judger) language(name, sourcePath string, prob *problem.Problem) (lang.Language, error) {
	if id, ok := prob.Languages[strings.ToLower(filepath.Ext(sourcePath))]; ok && name == "" {
		name = id
	}
	switch {
	case j.svc != nil && name != "":
		return lang.Language{ID: name, Name: name}, nil
	case name != "":
		return j.table.Lookup(name)
	}
	return j.table.ForFile(sourcePath)
}

// judge judges source in l on every test of prob, drawing progress.
// stopFirst stops at the first test that is not AC.
func (j *judger) judge(ctx context.Context, prob *problem.Problem, l lang.Language, source []byte, stopFirst bool, progress *progress, stderr io.Writer, log hclog.Logger) (plugin.JudgeResult, error) {
	f := j.f
	if j.svc != nil {
		fmt.Fprintf(stderr, "judging %s (%s, %d tests) in %s, through the podjail service\n", prob.Name, prob.Format, len(prob.Tests), l.Name)
		return judgeThroughService(ctx, j.svc, sandbox.JudgeRequest{ProblemDir: prob.Dir, Language: l.ID, Source: source,
			StopOnFirstFailure: stopFirst, Parallel: *f.parallel, RetryIE: *f.retryIE}, progress)
	}
	if err := j.inProcess(ctx, log); err != nil {
		return plugin.JudgeResult{}, err
	}
	req := plugin.JudgeRequest{Problem: prob, Lang: l, Source: source, Languages: j.table, StopOnFirstFailure: stopFirst, Parallel: *f.parallel, RetryIE: *f.retryIE, Progress: progress.update}
	fmt.Fprintf(stderr, "judging %s (%s, %d tests) in %s\n", prob.Name, prob.Format, len(prob.Tests), l.Name)
	return j.runner.Judge(ctx, req)
}

func printJudgement(w io.Writer, res plugin.JudgeResult) {
	if res.Build.Output != "" && res.Verdict == plugin.CE {
		fmt.Fprintf(w, "compiler output:\n%s\n", strings.TrimRight(res.Build.Output, "\n"))
	}
	if len(res.Tests) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TEST\tVERDICT\tTIME\tPEAK\tNOTE")
		for _, t := range res.Tests {
			fmt.Fprintf(tw, "%s\t%s\t%.3f s\t%s\t%s\n", t.Name, t.Verdict, t.Time.Seconds(), mib(t.Peak), t.Note)
		}
		_ = tw.Flush()
	}
	fmt.Fprintf(w, "verdict: %s", res.Verdict)
	if res.Note != "" {
		fmt.Fprintf(w, " (%s)", res.Note)
	}
	fmt.Fprintln(w)
}

// progress draws "[####----] 3/8 AC" on a terminal, one line per test
// otherwise.
type progress struct {
	w        io.Writer
	terminal bool
	drawn    bool
}

func newProgress(w io.Writer, terminal bool) *progress { return &progress{w: w, terminal: terminal} }

func (p *progress) update(done, total int, t plugin.TestResult) {
	if !p.terminal {
		fmt.Fprintf(p.w, "test %d/%d %s: %s %.3f s\n", done, total, t.Name, t.Verdict, t.Time.Seconds())
		return
	}
	const width = 30
	filled := width * done / total
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d %s %-3s", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, total, t.Name, t.Verdict)
	p.drawn = true
}

func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
