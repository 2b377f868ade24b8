package main

import (
	"context"
	"path/filepath"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/pflag"

	"github.com/podjail/podjail/plugin"
	"github.com/podjail/podjail/plugin/sandbox"
)

// serviceFlag is the --service flag of the commands that can go through a
// running `podjail serve`.
func serviceFlag(fs *pflag.FlagSet) *string { return fs.String("service", "", serviceUsage) }

const serviceUsage = "Unix socket `path` of a podjail service to judge through, or \"none\" (default: $PODJAIL_SERVICE, else the default socket when a service answers there, else in this process)"

// dialService is sandbox.DialService: the service a command goes through,
// nil for none.
func dialService(ctx context.Context, flagValue string, log hclog.Logger) (*sandbox.Client, func() error, error) {
	return sandbox.DialService(ctx, flagValue, log)
}

// judgeResultOf is the service's judgement in the shape podjail judge
// prints. parallel is what was asked (the service does not say what it
// used).
func judgeResultOf(r sandbox.JudgeResult, parallel int) plugin.JudgeResult {
	out := plugin.JudgeResult{Verdict: plugin.Verdict(r.Verdict), Note: r.Note, Build: buildResultOf(r.Build), Parallel: parallel}
	if r.Checker != nil {
		b := buildResultOf(*r.Checker)
		out.Checker = &b
	}
	for _, t := range r.Tests {
		out.Tests = append(out.Tests, testResultOf(t))
	}
	return out
}

func testResultOf(t sandbox.TestResult) plugin.TestResult {
	return plugin.TestResult{Name: t.Name, Sample: t.Sample, Verdict: plugin.Verdict(t.Verdict), Note: t.Note, Time: t.Time, Peak: t.Peak, Points: t.Points}
}

func buildResultOf(b sandbox.Build) plugin.BuildResult {
	return plugin.BuildResult{OK: b.OK, Output: b.Output, Note: b.Note, Time: b.Time, Peak: b.Peak}
}

// judgeThroughService judges through a podjail service, drawing progress
// as podjail judge does in-process.
func judgeThroughService(ctx context.Context, svc *sandbox.Client, req sandbox.JudgeRequest, p *progress) (plugin.JudgeResult, error) {
	dir, err := filepath.Abs(req.ProblemDir)
	if err != nil {
		return plugin.JudgeResult{}, err
	}
	req.ProblemDir = dir
	res, err := svc.Judge(ctx, req, func(t sandbox.TestResult) { p.update(t.Index, t.Total, testResultOf(t)) })
	if err != nil {
		return plugin.JudgeResult{}, err
	}
	return judgeResultOf(res, req.Parallel), nil
}
