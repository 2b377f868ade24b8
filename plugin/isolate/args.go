package isolate

import "strings"

// ParseArgs parses isolate's command line (without argv[0]) exactly as
// isolate's main does: glibc getopt_long over isolate's option table
// (options anywhere before "--", long ones by any unambiguous prefix,
// an optional value only attached), each option checked as it comes
// (numbers by opt_uint,
// times by atof, --dir and --env rules, one command at most), then: a
// command is required; --cg-mem (and the 1.x --cg-timing and
// --no-cg-timing) need --cg; --init and --cleanup take no operands and
// --run needs a program. Every rejection is a *UsageError carrying
// isolate's message; its exit status is ExitSandbox.
//
// For ModeVersion and ModeCheckConfig nothing after the options is
// checked, as isolate exits there. Options only isolate 1.x knows
// (--cg-timing, --no-cg-timing) are accepted and listed in Ignored.
func ParseArgs(argv []string) (Command, error) {
	c := Command{OpenFiles: 1024, Processes: 1, AsUID: -1, AsGID: -1, SyscallFlags: -1}
	requireCG := false
	num := func(o option, dst *int) error {
		n, err := optUint(o.arg)
		*dst = n
		return err
	}
	operands, err := getopt(argv, shortOpts, longOpts, func(o option) error {
		var err error
		switch o.code {
		case 'b':
			err = num(o, &c.BoxID)
		case 'c':
			c.Chdir = o.arg
		case optCG:
			c.CG = true
		case 'd':
			c.Dirs, err = addDir(c.Dirs, o.arg)
		case 'D':
			c.NoDefaultDirs = true
		case 'e':
			c.FullEnv = true
		case 'E':
			var r EnvRule
			if r, err = parseEnv(o.arg); err == nil {
				c.Env = append(c.Env, r)
			}
		case 'f':
			err = num(o, &c.FsizeKiB)
		case 'k':
			err = num(o, &c.StackKiB)
		case 'n':
			err = num(o, &c.OpenFiles)
		case 'i':
			c.Stdin = o.arg
		case 'm':
			err = num(o, &c.MemKiB)
		case 'M':
			c.Meta = o.arg
		case 'o':
			c.Stdout = o.arg
		case 'p':
			c.Processes = 0
			if o.hasArg {
				err = num(o, &c.Processes)
			}
		case 'q':
			blocks, inodes, ok := strings.Cut(o.arg, ",")
			if !ok {
				return usage("Invalid quota specified: " + o.arg + "\n")
			}
			q := Quota{}
			if q.Blocks, err = optUint(blocks); err == nil {
				q.Inodes, err = optUint(inodes)
			}
			c.Quota = &q
		case 'r':
			c.Stderr, c.StderrToStdout = o.arg, false
		case 's':
			c.Silent++
		case 't':
			c.Time, err = seconds(o.arg)
		case 'v':
			c.Verbose++
		case 'w':
			c.WallTime, err = seconds(o.arg)
		case 'x':
			c.ExtraTime, err = seconds(o.arg)
		case optInit, optRun, optCleanup, optVersion, optPrintCgRoot, optCheckConfig:
			if c.Mode != ModeNone && c.Mode != modeOf[o.code] {
				return usage("Only one command is allowed.\n")
			}
			c.Mode = modeOf[o.code]
		case optCGMem:
			err = num(o, &c.CGMemKiB)
			requireCG = true
		case optCGTiming, optNoCGTiming:
			c.Ignored = append(c.Ignored, o.name)
			requireCG = true // as isolate 1.x did
		case optShareNet:
			c.ShareNet = true
		case optInheritFDs:
			c.InheritFDs = true
		case optStderrToStdout:
			c.Stderr, c.StderrToStdout = "", true
		case optTTYHack:
			c.TTYHack = true
		case optCore:
			err = num(o, &c.CoreKiB)
		case optSpecialFiles:
			c.SpecialFiles = true
		case optWait:
			c.Wait = true
		case optAsUID:
			err = num(o, &c.AsUID)
		case optAsGID:
			err = num(o, &c.AsGID)
		case optSyscallFlags:
			err = num(o, &c.SyscallFlags)
		}
		return err
	})
	if err != nil {
		return Command{}, err
	}
	switch c.Mode {
	case ModeNone:
		return Command{}, usage("Please specify an isolate command (e.g. --init, --run).\n")
	case ModeVersion, ModeCheckConfig:
		return c, nil
	case ModePrintCgRoot:
		c.CG = true
	}
	if requireCG && !c.CG {
		return Command{}, usage("Options related to control groups require --cg to be set.\n")
	}
	switch {
	case c.Mode == ModeInit && len(operands) > 0:
		return Command{}, usage("--init mode takes no parameters\n")
	case c.Mode == ModeRun && len(operands) == 0:
		return Command{}, usage("--run mode requires a command to run\n")
	case c.Mode == ModeCleanup && len(operands) > 0:
		return Command{}, usage("--cleanup mode takes no parameters\n")
	case c.Mode == ModeRun:
		c.Program = operands
	}
	return c, nil
}
