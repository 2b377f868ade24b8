package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/problem"
)

// expectation is what a Kattis package's submissions/ folder says of the
// submissions in it (the 2025-09 spec's defaults, which the older versions'
// folders agree with): the verdicts every test may have, and the ones of
// which at least one must appear.
type expectation struct {
	allowed, required []plugin.Verdict // required empty: every test allowed
}

var expectations = map[string]expectation{
	"accepted":            {allowed: []plugin.Verdict{plugin.AC}},
	"wrong_answer":        {allowed: []plugin.Verdict{plugin.AC, plugin.WA}, required: []plugin.Verdict{plugin.WA}},
	"time_limit_exceeded": {allowed: []plugin.Verdict{plugin.AC, plugin.TLE}, required: []plugin.Verdict{plugin.TLE}},
	"run_time_error":      {allowed: []plugin.Verdict{plugin.AC, plugin.RTE}, required: []plugin.Verdict{plugin.RTE}},
	"rejected":            {allowed: []plugin.Verdict{plugin.AC, plugin.WA, plugin.TLE, plugin.RTE}, required: []plugin.Verdict{plugin.WA, plugin.TLE, plugin.RTE}},
	"brute_force":         {allowed: []plugin.Verdict{plugin.AC, plugin.TLE, plugin.RTE}, required: []plugin.Verdict{plugin.TLE, plugin.RTE}},
}

// kattisVerdict is how the format names a test's verdict: it has no
// presentation error, and a memory or output limit, or a forbidden system
// call, is a run-time error there.
func kattisVerdict(v plugin.Verdict) plugin.Verdict {
	switch v {
	case plugin.PE:
		return plugin.WA
	case plugin.MLE, plugin.OLE, plugin.RFE:
		return plugin.RTE
	}
	return v
}

// Verification is one submission's check against its folder.
type Verification struct {
	Submission string         `json:"submission"` // path under submissions/
	Folder     string         `json:"folder"`
	Language   string         `json:"language,omitempty"`
	OK         bool           `json:"ok"`
	Skipped    bool           `json:"skipped,omitempty"`
	Note       string         `json:"note,omitempty"`
	Verdict    plugin.Verdict `json:"verdict,omitempty"` // the format's name for the submission's verdict
	Slowest    string         `json:"slowest_test,omitempty"`
	SlowestNs  time.Duration  `json:"slowest_time_ns,omitempty"`
	// TimeLimit is the problem's time limit it was judged against (a
	// time_limit_exceeded submission: that times time_limit_to_tle).
	TimeLimit time.Duration       `json:"time_limit_ns,omitempty"`
	Judgement *plugin.JudgeResult `json:"judgement,omitempty"`
}

// VerifyReport is podjail verify's report.
type VerifyReport struct {
	// TimeLimit is the problem's time limit: the package's, or derived
	// from its slowest accepted submission (TimeLimitFrom says which).
	TimeLimit     time.Duration `json:"time_limit_ns"`
	TimeLimitFrom string        `json:"time_limit_from"`
	Problems      []string      `json:"problems,omitempty"` // what is wrong with the package itself
	// Inputs are the input validators' verdicts on every test's input.
	Inputs      []plugin.InputCheck `json:"input_validators,omitempty"`
	Submissions []Verification      `json:"submissions"`
}

func newVerifyCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify [flags] PACKAGE",
		Short: "judge every submission of a Kattis problem package against its folder's verdict",
		Long: "Runs every input validator of PACKAGE (input_validators/) on every test's input, then judges every program in PACKAGE/submissions/ (accepted, wrong_answer, time_limit_exceeded, " +
			"run_time_error, rejected, brute_force) on every test, each run in a fresh container of this " +
			"process, and checks its verdicts against what its folder says. The accepted ones go first; " +
			"a package without a time limit gets the one the format derives from the slowest of them " +
			"(times ac_to_time_limit, rounded up to time_resolution); time_limit_exceeded ones are judged " +
			"against the limit times time_limit_to_tle. Exits 0 when every judged submission is as its " +
			"folder says, 3 when one is not, 1 when judging failed.",
		Args: exactArgs(1, "PACKAGE"),
	}
	fs := cmd.Flags()
	var f judgeFlags
	f.url = urlFlag(fs)
	f.langFile = fs.String("languages", "", languagesUsage)
	f.shim = fs.String("shim", "", shimUsage)
	f.asJSON = fs.Bool("json", false, "print the report as JSON on stdout")
	f.retryIE = fs.Bool("retry-ie", false, "judge a test that ended IE once more on a fresh container before stopping")
	f.parallel = fs.Int("parallel", 0, "how many tests run at once, each on a core of its own (default: one per core podjail may use; 1: one after the other)")
	// In this process: each submission is judged against a time limit of
	// verify's choosing, which a service's judge (the package's own) has
	// no field for.
	noStop, noLang, here := false, "", "none"
	f.stopFirst, f.langName, f.service = &noStop, &noLang, &here
	cmd.RunE = c.onHost(func(ctx context.Context, args []string, log hclog.Logger) int {
		return verify(ctx, f, args[0], c.stdout, c.stderr, log)
	})
	return cmd
}

// verify is podjail verify once its flags are read: the accepted
// submissions first (a package without a time limit gets one derived from
// the slowest of them, as the format says), then the others against it,
// the time_limit_exceeded ones against it times time_limit_to_tle.
func verify(ctx context.Context, f judgeFlags, dir string, stdout, stderr io.Writer, log hclog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "podjail verify: %v\n", err)
		return code
	}
	prob, err := problem.LoadUntimed(dir)
	if err != nil {
		return fail(exitUsage, err)
	}
	if prob.Format != problem.FormatKattis {
		return fail(exitUsage, fmt.Errorf("%s is not a Kattis package (no data/): podjail verify checks a Kattis package's submissions/", prob.Dir))
	}
	subs, err := submissions(prob.Dir)
	if err != nil {
		return fail(exitUsage, err)
	}
	j, code, err := openJudger(ctx, f, log)
	if err != nil {
		return fail(code, err)
	}
	defer j.close()
	rep := VerifyReport{TimeLimit: prob.TimeLimit, TimeLimitFrom: "the package"}
	if len(prob.InputValidators) > 0 {
		if err := j.inProcess(ctx, log); err != nil {
			return fail(exitUsage, err)
		}
		fmt.Fprintf(stderr, "checking %d inputs with %d input validators\n", len(prob.Tests), len(prob.InputValidators))
		if rep.Inputs, err = j.runner.CheckInputs(ctx, prob, j.table, ""); err != nil {
			return fail(errCode(err), err)
		}
		for _, c := range rep.Inputs {
			for _, r := range c.Rejected {
				rep.Problems = append(rep.Problems, fmt.Sprintf("input validator %s rejects %s", c.Validator, r))
			}
		}
	}
	judgeAll := func(folder func(string) bool, limit time.Duration) int {
		for _, s := range subs {
			if !folder(s.folder) {
				continue
			}
			v, code, err := verifyOne(ctx, j, prob, s, limit, stderr, log)
			if err != nil {
				return fail(code, err)
			}
			rep.Submissions = append(rep.Submissions, v)
		}
		return exitOK
	}
	isAccepted := func(f string) bool { return f == "accepted" }
	first := prob.TimeLimit
	if first == 0 {
		first = problem.MaxTimeLimit
	}
	if code := judgeAll(isAccepted, first); code != exitOK {
		return code
	}
	var slowest time.Duration
	accepted := 0
	for _, v := range rep.Submissions {
		if v.OK {
			slowest, accepted = max(slowest, v.SlowestNs), accepted+1
		}
	}
	if accepted == 0 {
		rep.Problems = append(rep.Problems, "no accepted submission was judged as such: the format requires at least one, in submissions/accepted/")
	}
	t := prob.Timing
	switch exact := slowest.Seconds() * t.ACToTimeLimit; {
	case prob.TimeLimit == 0 && accepted == 0:
		return fail(exitUsage, errors.New("the package gives no time limit and no accepted submission ran to derive one from: add `limits: {time_limit: 1}` (seconds) or an accepted submission"))
	case prob.TimeLimit == 0:
		rep.TimeLimit = derivedLimit(slowest, t)
		rep.TimeLimitFrom = fmt.Sprintf("derived: the slowest accepted submission's %.3f s times ac_to_time_limit %g, rounded up to a multiple of %g s", slowest.Seconds(), t.ACToTimeLimit, t.Resolution)
		if rep.TimeLimit > problem.MaxTimeLimit {
			return fail(exitUsage, fmt.Errorf("the derived time limit %.3f s (%s) is over podjail's largest, %s", rep.TimeLimit.Seconds(), rep.TimeLimitFrom, problem.MaxTimeLimit))
		}
	case exact > prob.TimeLimit.Seconds():
		rep.Problems = append(rep.Problems, fmt.Sprintf("the time limit %.3f s is tighter than the slowest accepted submission's %.3f s times ac_to_time_limit %g", prob.TimeLimit.Seconds(), slowest.Seconds(), t.ACToTimeLimit))
	}
	fmt.Fprintf(stderr, "time limit %.3f s (%s)\n", rep.TimeLimit.Seconds(), rep.TimeLimitFrom)
	tle := func(f string) bool { return f == "time_limit_exceeded" }
	high := min(time.Duration(float64(rep.TimeLimit)*t.TimeLimitToTLE), problem.MaxTimeLimit)
	if code := judgeAll(func(f string) bool { return !isAccepted(f) && !tle(f) }, rep.TimeLimit); code != exitOK {
		return code
	}
	if code := judgeAll(tle, high); code != exitOK {
		return code
	}
	if *f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		printVerification(stdout, rep)
	}
	code = exitOK
	if len(rep.Problems) > 0 {
		code = exitRejected
	}
	for _, v := range rep.Submissions {
		switch {
		case v.Judgement != nil && (v.Judgement.Verdict == plugin.IE || v.Judgement.Verdict == plugin.CF):
			return exitFailure
		case !v.OK && !v.Skipped:
			code = exitRejected
		}
	}
	return code
}

// derivedLimit is the time limit the format derives from the slowest
// accepted submission's time: the smallest multiple of the resolution
// (one at least) that is at least slowest times ac_to_time_limit.
func derivedLimit(slowest time.Duration, t problem.Timing) time.Duration {
	exact := slowest.Seconds() * t.ACToTimeLimit
	secs := max(1, math.Ceil(exact/t.Resolution-1e-9)) * t.Resolution
	return time.Duration(math.Round(secs*1000)) * time.Millisecond
}

// verifyOne judges one submission against limit; on error, the exit code.
func verifyOne(ctx context.Context, j *judger, prob *problem.Problem, s submission, limit time.Duration, stderr io.Writer, log hclog.Logger) (Verification, int, error) {
	v := Verification{Submission: s.rel, Folder: s.folder}
	l, lerr := j.language("", s.path, prob)
	switch {
	case s.unknown:
		v.Skipped, v.Note = true, "not a folder the format names (accepted, wrong_answer, time_limit_exceeded, run_time_error, rejected, brute_force): its submissions have no expected verdict"
	case s.folder == "partially_accepted":
		v.Skipped, v.Note = true, "partially accepted submissions belong to scoring problems, which podjail does not judge yet"
	case s.dir:
		v.Skipped, v.Note = true, "a submission of several files: not supported yet"
	case lerr != nil:
		v.Skipped, v.Note = true, lerr.Error()
	}
	if v.Skipped {
		fmt.Fprintf(stderr, "skipping %s: %s\n", s.rel, v.Note)
		return v, exitOK, nil
	}
	v.Language, v.TimeLimit = l.ID, limit
	source, err := os.ReadFile(s.path)
	if err != nil {
		return v, exitUsage, err
	}
	timed := *prob
	timed.TimeLimit = limit
	progress := newProgress(stderr, isTerminal(stderr))
	// A rejected submission stops at its first rejected test, as
	// problemtools judges it (on_reject: break): the tests up to it are
	// checked against the folder; an accepted one runs them all.
	res, err := j.judge(ctx, &timed, l, source, s.folder != "accepted", progress, stderr, log)
	progress.done()
	if err != nil {
		return v, errCode(err), fmt.Errorf("%s: %w", s.rel, err)
	}
	check(&v, res, expectations[s.folder])
	return v, exitOK, nil
}

// check sets v from res, judged against e.
func check(v *Verification, res plugin.JudgeResult, e expectation) {
	v.Judgement = &res
	v.Verdict = kattisVerdict(res.Verdict)
	for _, t := range res.Tests {
		if t.Time >= v.SlowestNs {
			v.Slowest, v.SlowestNs = t.Name, t.Time
		}
	}
	if res.Verdict == plugin.CE || res.Verdict == plugin.IE || res.Verdict == plugin.CF {
		v.Note = fmt.Sprintf("%s: %s", res.Verdict, res.Note)
		return
	}
	seen := false
	for _, t := range res.Tests {
		k := kattisVerdict(t.Verdict)
		if !slices.Contains(e.allowed, k) {
			v.Note = fmt.Sprintf("test %s is %s, which %s/ does not allow (%s): %s", t.Name, k, v.Folder, verdictList(e.allowed), t.Note)
			return
		}
		seen = seen || slices.Contains(e.required, k)
	}
	if len(e.required) > 0 && !seen {
		v.Note = fmt.Sprintf("no test is %s, which %s/ requires of at least one", verdictList(e.required), v.Folder)
		return
	}
	v.OK = true
}

func verdictList(vs []plugin.Verdict) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, " or ")
}

func printVerification(w io.Writer, rep VerifyReport) {
	fmt.Fprintf(w, "time limit: %.3f s (%s)\n", rep.TimeLimit.Seconds(), rep.TimeLimitFrom)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "PACKAGE NOT AS EXPECTED: %s\n", p)
	}
	for _, c := range rep.Inputs {
		switch {
		case c.Skipped != "":
			fmt.Fprintf(w, "input validator %s: skipped: %s\n", c.Validator, c.Skipped)
		case len(c.Rejected) == 0:
			fmt.Fprintf(w, "input validator %s: all %d inputs valid\n", c.Validator, c.Checked)
		default:
			fmt.Fprintf(w, "input validator %s: %d of %d inputs rejected\n", c.Validator, len(c.Rejected), c.Checked)
		}
	}
	report := rep.Submissions
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBMISSION\tLANGUAGE\tVERDICT\tSLOWEST\tRESULT")
	bad, skipped := 0, 0
	for _, v := range report {
		result := "as expected"
		switch {
		case v.Skipped:
			result, skipped = "skipped: "+v.Note, skipped+1
		case !v.OK:
			result, bad = "NOT AS EXPECTED: "+v.Note, bad+1
		}
		slowest := ""
		if v.Slowest != "" {
			slowest = fmt.Sprintf("%.3f s (%s)", v.SlowestNs.Seconds(), v.Slowest)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Submission, v.Language, v.Verdict, slowest, result)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d submissions: %d as expected, %d not, %d skipped\n", len(report), len(report)-bad-skipped, bad, skipped)
}

// submission is one program in a package's submissions/.
type submission struct {
	folder, rel, path string
	dir               bool // a directory: a submission of several files
	unknown           bool // a folder the format does not name (not judged)
}

// submissions lists dir/submissions/FOLDER/NAME in order, FOLDER one the
// format names.
func submissions(dir string) ([]submission, error) {
	root := filepath.Join(dir, "submissions")
	if _, err := os.Stat(filepath.Join(root, "submissions.yaml")); err == nil {
		return nil, errors.New("submissions/submissions.yaml is not read yet: podjail verify checks each folder's default expectations; remove the file or move its submissions into the folders")
	}
	folders, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the inputs are checked all the same
	}
	if err != nil {
		return nil, fmt.Errorf("%s: a package's submissions live in submissions/accepted/, submissions/wrong_answer/ and the like: %w", root, err)
	}
	var out []submission
	for _, fo := range folders {
		if strings.HasPrefix(fo.Name(), ".") || !fo.IsDir() {
			continue
		}
		if fo.Name() == "partially_accepted" {
			out = append(out, submission{folder: fo.Name(), rel: fo.Name() + "/", path: filepath.Join(root, fo.Name()), dir: true})
			continue
		}
		if _, ok := expectations[fo.Name()]; !ok {
			// problemtools ignores such folders too (slow_accepted/ and the like).
			out = append(out, submission{folder: fo.Name(), rel: fo.Name() + "/", path: filepath.Join(root, fo.Name()), dir: true, unknown: true})
			continue
		}
		entries, err := os.ReadDir(filepath.Join(root, fo.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			out = append(out, submission{folder: fo.Name(), rel: fo.Name() + "/" + e.Name(), path: filepath.Join(root, fo.Name(), e.Name()), dir: e.IsDir()})
		}
	}
	return out, nil
}
