package problem

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestKattisFlags(t *testing.T) {
	for _, tc := range []struct{ flags, want, err string }{
		{"", "case-insensitive", ""},
		{"  ", "case-insensitive", ""},
		{"case_sensitive", "tokens", ""},
		{"space_change_sensitive", "exact fold", ""},
		{"case_sensitive space_change_sensitive", "exact", ""},
		{"float_tolerance 1e-6", "float abs=1e-06 rel=1e-06 fold", ""},
		{"float_absolute_tolerance 0.001", "float abs=0.001 fold", ""},
		{"float_relative_tolerance 1e-9", "float rel=1e-09 fold", ""},
		{"float_relative_tolerance 1e-4 float_absolute_tolerance 1e-5", "float abs=1e-05 rel=0.0001 fold", ""},
		{"case_sensitive float_tolerance 1e-6", "float abs=1e-06 rel=1e-06", ""},
		{"float_tolerance 0", "float fold", ""},
		{"float_tolerance", "", "needs a value"},
		{"float_tolerance abc", "", "non-negative number"},
		{"float_tolerance -1", "", "non-negative number"},
		{"float_tolerance 1e-6 space_change_sensitive", "", "cannot be expressed"},
		{"ignore_case", "", `unknown flag "ignore_case"`},
	} {
		got, err := flagsToComparator(tc.flags)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.flags, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.flags, err, tc.err)
		case got != tc.want:
			t.Errorf("%q: got %q, want %q", tc.flags, got, tc.want)
		}
		if got != "" {
			if err := checkComparator(got); err != nil {
				t.Errorf("%q maps to %q, which the plain layout rejects: %v", tc.flags, got, err)
			}
		}
	}
}

func TestKattisPackage(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml": "problem_format_version: legacy\ntype: pass-fail\nname: {sv: Hej, en: Hello}\n" +
			"author: Someone\nlicense: cc by-sa\nrights_owner: Someone\nkeywords: easy\n" +
			"validation: custom\nlimits:\n  time_multiplier: 2\n  memory: 512\n  output: 16\n",
		".timelimit":                           "2.5\n",
		"output_validators/check/validate.cpp": "",
		"output_validators/check/validate.h":   "",
		"data/sample/1.in":                     "", "data/sample/1.ans": "", "data/sample/1.png": "",
		"data/secret/testdata.yaml": "on_reject: continue\n",
		"data/secret/group10/1.in":  "", "data/secret/group10/1.ans": "",
		"data/secret/group2/10.in": "", "data/secret/group2/10.ans": "",
		"data/secret/group2/9.in": "", "data/secret/group2/9.ans": "", "data/secret/group2/9.desc": "",
		"data/secret/group2/.hidden/x.in":   "",
		"data/testdata.yaml":                "",
		"data/invalid_input/bad.in":         "",
		"problem_statement/problem.en.tex":  "",
		"submissions/accepted/solution.cpp": "",
	})
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Hello" || p.TimeLimit != 2500*time.Millisecond || p.MemoryBytes != 512<<20 ||
		p.OutputBytes != 16<<20 || p.Comparator != "" || p.Interactive {
		t.Errorf("got %+v", p)
	}
	want := &Program{Source: filepath.Join(dir, "output_validators/check/validate.cpp"), Lang: "cpp17", Extra: []string{filepath.Join(dir, "output_validators/check/validate.h")}}
	if !reflect.DeepEqual(p.Checker, want) {
		t.Errorf("Checker %+v, want %+v", p.Checker, want)
	}
	if got := names(p); !reflect.DeepEqual(got, []string{"sample/1", "secret/group2/9", "secret/group2/10", "secret/group10/1"}) {
		t.Errorf("tests %v", got)
	}
	if !p.Tests[0].Sample || p.Tests[1].Sample {
		t.Errorf("sample flags wrong: %+v", p.Tests)
	}
	if p.Tests[3].Input != filepath.Join(dir, "data/secret/group10/1.in") {
		t.Errorf("input path %q", p.Tests[3].Input)
	}

	// Interactive, a single-file validator, limits.time_limit over
	// .timelimit, no name (the directory's), no samples.
	dir = t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml":                  "validation: custom interactive\nlimits: {time_limit: 3}\n",
		".timelimit":                    "7",
		"output_validators/interact.py": "#!/usr/bin/env python3\n",
		"data/secret/1.in":              "", "data/secret/1.ans": "",
	})
	if p, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	want = &Program{Source: filepath.Join(dir, "output_validators/interact.py"), Lang: "python3"}
	if !p.Interactive || !reflect.DeepEqual(p.Interactor, want) || p.Checker != nil ||
		p.TimeLimit != 3*time.Second || p.Name != filepath.Base(dir) {
		t.Errorf("got %+v, interactor %+v", p, p.Interactor)
	}

	// Legacy: a custom validator's flags, then its groups' (inherited and
	// overridden); the default validator's flags per group.
	dir = t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml":              "validation: custom\nvalidator_flags: strict\nlimits: {time_limit: 1}\n",
		"output_validators/v.cpp":   "",
		"data/secret/testdata.yaml": "output_validator_flags: eps 1e-3\n",
		"data/secret/a/1.in":        "", "data/secret/a/1.ans": "",
		"data/secret/b/testdata.yaml": "output_validator_flags: eps 1e-9\n",
		"data/secret/b/1.in":          "", "data/secret/b/1.ans": "",
		"data/sample/1.in": "", "data/sample/1.ans": "",
	})
	if p, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	args := [][]string{}
	for _, tc := range p.Tests {
		args = append(args, tc.ValidatorArgs)
	}
	if !reflect.DeepEqual(args, [][]string{{"strict"}, {"strict", "eps", "1e-3"}, {"strict", "eps", "1e-9"}}) || p.Protocol.Name() != "kattis" {
		t.Errorf("validator arguments %q, protocol %s", args, p.Protocol.Name())
	}

	// 2025-09: type as a list, name as a map, credits, output_validator/
	// as the validator's own directory (its source and its header), the
	// arguments of test_group.yaml and of a test's own .yaml; the default
	// validator's arguments as a comparator per test.
	for _, version := range []string{"2023-07-draft", "2025-09"} {
		dir = t.TempDir()
		write(t, dir, map[string]string{
			"problem.yaml": "problem_format_version: " + version + "\ntype: [pass-fail, interactive]\nname: {en: Guess}\nuuid: 5ca6ba5b-36d5-4eff-8aa7-d967cbc4375e\n" +
				"credits: {authors: [A. Author <a@example.com>]}\nsource: Somewhere\nlicense: cc by-sa\nlimits: {time_limit: 2, time_multipliers: {time_limit_to_tle: 4}}\n",
			"output_validator/validate.cc": "",
			"output_validator/validate.h":  "",
			"data/secret/test_group.yaml":  "output_validator_args: [mode, fast]\n",
			"data/secret/01.in":            "", "data/secret/01.ans": "",
			"data/secret/02.in": "", "data/secret/02.ans": "", "data/secret/02.yaml": "output_validator_args: [mode, slow]\nhint: h\n",
			"data/sample/1.interaction": "",
			"statement/problem.en.md":   "",
		})
		if p, err = Load(dir); err != nil {
			t.Fatal(version, err)
		}
		want = &Program{Source: filepath.Join(dir, "output_validator/validate.cc"), Lang: "cpp17", Extra: []string{filepath.Join(dir, "output_validator/validate.h")}}
		if p.Name != "Guess" || !p.Interactive || !reflect.DeepEqual(p.Interactor, want) || len(p.Tests) != 2 ||
			!reflect.DeepEqual(p.Tests[0].ValidatorArgs, []string{"mode", "fast"}) || !reflect.DeepEqual(p.Tests[1].ValidatorArgs, []string{"mode", "slow"}) {
			t.Errorf("%s: got %+v, interactor %+v", version, p, p.Interactor)
		}
	}
	dir = t.TempDir()
	write(t, dir, map[string]string{
		"problem.yaml":                "problem_format_version: 2025-09\nname: Sum\nlimits: {time_limit: 1}\n",
		"data/secret/test_group.yaml": "output_validator_args: [float_tolerance, \"1e-6\"]\n",
		"data/secret/1.in":            "", "data/secret/1.ans": "",
		"data/sample/1.in": "", "data/sample/1.ans": "",
	})
	if p, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if p.Comparator != "case-insensitive" || p.Tests[0].Comparator != "" || p.Tests[1].Comparator != "float abs=1e-06 rel=1e-06 fold" {
		t.Errorf("default validator: problem %q, tests %q %q", p.Comparator, p.Tests[0].Comparator, p.Tests[1].Comparator)
	}
}

func TestBrokenKattis(t *testing.T) {
	y := "problem.yaml"
	ok := func(kv ...string) map[string]string {
		m := map[string]string{y: "name: K\nlimits: {time_limit: 1}\n", "data/secret/1.in": "", "data/secret/1.ans": ""}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	runBroken(t, []brokenCase{
		{"missing problem.yaml", map[string]string{"data/secret/1.in": "", "data/secret/1.ans": ""}, y, "", "not found"},
		{"no time limit", ok(y, "name: K\n"), y, "limits.time_limit", "does not derive time limits"},
		{"bad .timelimit", ok(y, "name: K\n", ".timelimit", "soon"), ".timelimit", "", `positive number of seconds, got "soon"`},
		{"zero .timelimit", ok(y, "name: K\n", ".timelimit", "0"), ".timelimit", "", "positive"},
		{"bad time_limit", ok(y, "limits: {time_limit: fast}\n"), y, "limits.time_limit", `got "fast"`},
		{"limits typo", ok(y, "limits: {time_limit: 1, memroy: 5}\n"), y, "limits.memroy", `did you mean "memory"?`},
		{"limits not a map", ok(y, "limits: 5\n"), y, "limits", "mapping"},
		{"memory text", ok(y, "limits: {time_limit: 1, memory: 1G}\n"), y, "limits.memory", "MiB"},
		{"memory tiny", ok(y, "limits: {time_limit: 1, memory: 1}\n"), y, "limits.memory", "at least 6"},
		{"top-level typo", ok(y, "name: K\nlimit: {time_limit: 1}\n"), y, "limit", `did you mean "limits"?`},
		{"yaml syntax", ok(y, "name: [K\n"), y, "", "invalid YAML"},
		{"format version", ok(y, "problem_format_version: 2024-01\nlimits: {time_limit: 1}\n"), y, "problem_format_version", "legacy, legacy-icpc, 2023-07-draft"},
		{"a legacy field in 2025-09", ok(y, "problem_format_version: 2025-09\nvalidation: custom\nlimits: {time_limit: 1}\n"), y, "validation", "unknown field"},
		{"2025-09 scoring", ok(y, "problem_format_version: 2025-09\ntype: scoring\nlimits: {time_limit: 1}\n"), y, "type", `"scoring" problems are not supported yet`},
		{"2025-09 multi-pass without validator", ok(y, "problem_format_version: 2025-09\ntype: [multi-pass]\nlimits: {time_limit: 1}\n"), y, "type", "is multi-pass but output_validator/ holds no validator"},
		{"2025-09 passes without multi-pass", ok(y, "problem_format_version: 2025-09\nlimits: {time_limit: 1, validation_passes: 3}\n"), y, "limits.validation_passes", "for multi-pass problems only"},
		{"2025-09 one pass", ok(y, "problem_format_version: 2025-09\ntype: multi-pass\nlimits: {time_limit: 1, validation_passes: 1}\n", "output_validator/v.c", ""), y, "limits.validation_passes", "from 2 to 100"},
		{"2025-09 submit-answer", ok(y, "problem_format_version: 2025-09\ntype: submit-answer\nlimits: {time_limit: 1}\n"), y, "type", `"submit-answer" problems are not supported yet`},
		{"2025-09 unknown type", ok(y, "problem_format_version: 2025-09\ntype: batch\nlimits: {time_limit: 1}\n"), y, "type", "unknown type"},
		{"2025-09 interactive without validator", ok(y, "problem_format_version: 2025-09\ntype: interactive\nlimits: {time_limit: 1}\n"), y, "type", "holds no validator"},
		{"2025-09 constants", ok(y, "problem_format_version: 2025-09\nconstants: {n: 5}\nlimits: {time_limit: 1}\n"), y, "constants", "not supported yet"},
		{"2025-09 submission args", ok(y, "problem_format_version: 2025-09\nlimits: {time_limit: 1}\n", "data/secret/1.yaml", "args: [x]\n"), "data/secret/1.yaml", "args", "not supported yet"},
		{"2025-09 test yaml typo", ok(y, "problem_format_version: 2025-09\nlimits: {time_limit: 1}\n", "data/secret/1.yaml", "output_validator_arg: [x]\n"), "data/secret/1.yaml", "output_validator_arg", "did you mean"},
		{"2025-09 multipliers", ok(y, "problem_format_version: 2025-09\nlimits: {time_limit: 1, time_multipliers: {ac_to_time_limit: 0.5}}\n"), y, "limits.time_multipliers.ac_to_time_limit", "at least 1"},
		{"2025-09 bad default args", ok(y, "problem_format_version: 2025-09\nlimits: {time_limit: 1}\n", "data/secret/test_group.yaml", "output_validator_args: [ignore_case]\n"), "data/secret/1", "output_validator_args", "unknown flag"},
		{"scoring", ok(y, "type: scoring\nlimits: {time_limit: 1}\n"), y, "type", "pass-fail"},
		{"unknown flag", ok(y, "limits: {time_limit: 1}\nvalidator_flags: ignore_case\n"), y, "validator_flags", `unknown flag "ignore_case"`},
		{"float and space", ok(y, "limits: {time_limit: 1}\nvalidator_flags: float_tolerance 1e-6 space_change_sensitive\n"), y, "validator_flags", "cannot be expressed"},
		{"validation typo", ok(y, "limits: {time_limit: 1}\nvalidation: costum\n"), y, "validation", "must be default, custom or custom interactive"},
		{"score", ok(y, "limits: {time_limit: 1}\nvalidation: custom score\n", "output_validators/v.cpp", ""), y, "validation", "scoring"},
		{"custom without validator", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n"), y, "validation", "holds no validator"},
		{"two validators", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n", "output_validators/a.cpp", "", "output_validators/b/b.py", ""), "output_validators", "", "holds 2 validators (a.cpp, b)"},
		{"build script", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n", "output_validators/v/v.cpp", "", "output_validators/v/build", ""), "output_validators/v/build", "", "not supported"},
		{"two sources", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n", "output_validators/v/a.cpp", "", "output_validators/v/b.cpp", ""), "output_validators/v", "", "more than one source file"},
		{"unknown validator language", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n", "output_validators/v.java", ""), "output_validators/v.java", "", "language"},
		{"python2 validator", ok(y, "limits: {time_limit: 1}\nvalidation: custom\n", "output_validators/v.py", "#!/usr/bin/python2\n"), "output_validators/v.py", "", "Python 2"},
		{"default with validator", ok("output_validators/v.cpp", ""), y, "validation", "validation: custom"},
		{"no secret", map[string]string{y: "limits: {time_limit: 1}\n", "data/sample/1.in": "", "data/sample/1.ans": ""}, "data/secret", "", "not found"},
		{"no tests", map[string]string{y: "limits: {time_limit: 1}\n", "data/secret/": ""}, "data/secret", "", "no tests"},
		{"input without answer", ok("data/secret/g/02.in", "", "data/secret/g/3.ans", ""), "data/secret/g/02.in", "", "has no answer file data/secret/g/02.ans"},
		{"answer without input", ok("data/sample/1.ans", ""), "data/sample/1.ans", "", "has no input file data/sample/1.in"},
		{"tests in data root", ok("data/1.in", ""), "data/1.in", "", "move them to data/secret/"},
		{"unknown group", ok("data/secrets/1.in", ""), "data/secrets", "", "unknown test group"},
		{"group flags", ok("data/secret/testdata.yaml", "output_validator_flags: float_tolerance\n"), "data/secret/1", "output_validator_args", "needs a value"},
		{"group typo", ok("data/secret/testdata.yaml", "output_validator_flag: x\n"), "data/secret/testdata.yaml", "output_validator_flag", "did you mean"},
		{"symlink outside", ok("data/secret/2.in", "->OUTSIDE", "data/secret/2.ans", ""), "data/secret/2.in", "", "outside the problem directory"},
		{"symlinked dir", ok("data/secret/g", "->../sample", "data/sample/1.in", "", "data/sample/1.ans", ""), "data/secret/g", "", "symlink to a directory"},
	})
}
