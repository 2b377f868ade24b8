package plugin

import (
	"context"
	"fmt"
	"os"

	"github.com/podjail/podjail/bindings"
	"github.com/podjail/podjail/plugin/lang"
	"github.com/podjail/podjail/plugin/problem"
	"github.com/podjail/podjail/plugin/runner"
	"github.com/podjail/podjail/plugin/validator"
)

// InputCheck is one input validator's verdict on a problem's inputs.
type InputCheck struct {
	Validator string `json:"validator"`
	// Skipped says why the validator was not run; "" when it was.
	Skipped string `json:"skipped,omitempty"`
	// Checked is how many inputs it ran on.
	Checked int `json:"checked"`
	// Rejected lists the inputs it did not accept: "TEST: why".
	Rejected []string `json:"rejected,omitempty"`
}

// CheckInputs runs each of p's input validators on every test's input,
// each run in a fresh container, as the Kattis format calls them
// (`validator [args] < input`, exit 42 when valid). A validator that does
// not build, or is of a kind podjail does not run, is reported, not an
// error; a failure of ours is.
func (r *Runner) CheckInputs(ctx context.Context, p *problem.Problem, languages *lang.Table, tmpDir string) ([]InputCheck, error) {
	if languages == nil {
		languages = lang.Default()
	}
	tmp, err := os.MkdirTemp(tmpDir, "podjail-inputs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o700); err != nil {
		return nil, err
	}
	var out []InputCheck
	for _, v := range p.InputValidators {
		c := InputCheck{Validator: v.Name, Skipped: v.Unusable}
		if c.Skipped == "" {
			if err := r.checkInputs(ctx, p, v, languages, tmp, &c); err != nil {
				return out, fmt.Errorf("input validator %s: %w", v.Name, err)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func (r *Runner) checkInputs(ctx context.Context, p *problem.Problem, v problem.Program, languages *lang.Table, tmp string, c *InputCheck) error {
	l, err := languages.Lookup(v.Lang)
	if err != nil {
		c.Skipped = err.Error()
		return nil
	}
	files, err := programFiles(l, v)
	if err != nil {
		c.Skipped = err.Error()
		return nil
	}
	if err := r.imagesPresent(ctx, l.BuildImage, l.RunImage); err != nil {
		return err
	}
	b, err := r.BuildFiles(ctx, l, files, tmp)
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.Dir)
	if !b.OK {
		c.Skipped = "it does not build: " + b.Note + "\n" + b.Output
		return nil
	}
	for _, t := range p.Tests {
		args := t.InputValidatorArgs[v.Name]
		if a, ok := t.InputValidatorArgs[""]; ok && args == nil {
			args = a
		}
		out := &headBuffer{keep: checkerOutput}
		run := runner.RunRequest{
			Image:     l.RunImage,
			Command:   append(append(append([]string{}, mergeStderr...), l.Run...), args...),
			Env:       l.Env,
			InputFile: t.Input,
			Output:    out,
			Binds:     []bindings.Bind{{Source: b.Dir, Destination: lang.ArtefactDir}},
		}
		checkerLimits().Set(&run)
		res, err := r.Run(ctx, run)
		if err != nil {
			return err
		}
		c.Checked++
		switch why := stopNotes(res); {
		case why != "":
			c.Rejected = append(c.Rejected, t.Name+": "+why)
		case res.ExitCode != 42:
			c.Rejected = append(c.Rejected, fmt.Sprintf("%s: exit code %d (42 accepts): %s", t.Name, res.ExitCode, validator.FirstLine(out.String())))
		}
	}
	return nil
}
