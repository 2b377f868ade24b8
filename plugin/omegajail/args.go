package omegajail

import (
	"fmt"
	"slices"
	"strings"
)

// flagDef is one flag of omegajail's src/args.rs. clap derives the long
// names from the field names in kebab case.
type flagDef struct {
	long     string
	short    byte   // 0: none
	value    bool   // takes a value
	multiple bool   // may be repeated (Vec fields)
	enum     bool   // value must be one of Languages()
	required bool   // plain String field without a default
	display  string // the value's name, for messages
}

var flags = []flagDef{
	{long: "root", value: true, display: "<ROOT>"},
	{long: "compile", value: true, enum: true, display: "<LANGUAGE>"},
	{long: "compile-source", value: true, multiple: true, display: "<PATH>"},
	{long: "compile-target", value: true, display: "<PATH>"},
	{long: "run", value: true, enum: true, display: "<LANGUAGE>"},
	{long: "run-target", value: true, display: "<PATH>"},
	{long: "homedir", value: true, required: true, display: "<PATH>"},
	{long: "homedir-writable"},
	{long: "stdin", short: '0', value: true, display: "<PATH>"},
	{long: "stdout", short: '1', value: true, display: "<PATH>"},
	{long: "stderr", short: '2', value: true, display: "<PATH>"},
	{long: "meta", short: 'M', value: true, display: "<PATH>"},
	{long: "time-limit", short: 't', value: true, display: "<MSEC>"},
	{long: "extra-wall-time-limit", short: 'w', value: true, display: "<MSEC>"},
	{long: "output-limit", short: 'O', value: true, display: "<BYTES>"},
	{long: "memory-limit", short: 'm', value: true, display: "<BYTES>"},
	{long: "cgroup-path", value: true, display: "<PATH>"},
	{long: "disable-sandboxing"},
	{long: "bind", value: true, multiple: true, display: "<SOURCE:TARGET>"},
	{long: "allow-sigsys-fallback"},
	// clap's own.
	{long: "help", short: 'h'},
	{long: "version", short: 'V'},
}

func lookupLong(name string) *flagDef {
	for i := range flags {
		if flags[i].long == name {
			return &flags[i]
		}
	}
	return nil
}

func lookupShort(c byte) *flagDef {
	for i := range flags {
		if flags[i].short == c {
			return &flags[i]
		}
	}
	return nil
}

// seen collects the occurrences of each flag in order of first use.
type seen struct {
	order  []string
	values map[string][]string
	count  map[string]int
}

func (s *seen) add(f *flagDef, value string, hasValue bool) {
	if s.count[f.long] == 0 {
		s.order = append(s.order, f.long)
	}
	s.count[f.long]++
	if hasValue {
		s.values[f.long] = append(s.values[f.long], value)
	}
}

// ParseArgs parses omegajail's command line (without argv[0]) the way
// omegajail's clap 3.1.2 parser does: long flags as "--name value" or
// "--name=value", short ones as "-t 1000", "-t1000" or "-t=1000"; a value
// may not start with "-" unless it is "-" itself; everything after "--",
// or from the first positional argument on, is ExtraArgs. Unknown flags,
// a missing --homedir, neither or both of --compile and --run, --compile
// without --compile-source, a repeated single-valued flag, a language
// omegajail does not know and a number that is not a u64 are errors
// (*ArgError) naming the flag. -h/--help and -V/--version return ErrHelp
// and ErrVersion.
func ParseArgs(argv []string) (Request, error) {
	s := seen{values: map[string][]string{}, count: map[string]int{}}
	var extra []string
	var pending *flagDef // a flag waiting for its value
	trailing := false
	missing := func(f *flagDef) error {
		return argErr("--"+f.long, "requires a value "+f.display+" but none was supplied")
	}
	for _, arg := range argv {
		switch {
		case trailing:
			extra = append(extra, arg)
		case strings.HasPrefix(arg, "--"):
			if pending != nil {
				return Request{}, missing(pending)
			}
			if arg == "--" {
				trailing = true
				continue
			}
			name, value, hasEq := strings.Cut(arg[2:], "=")
			f := lookupLong(name)
			if f == nil {
				return Request{}, argErr("--"+name, "unknown flag (found argument '"+arg+"' which wasn't expected)")
			}
			if f.long == "help" || f.long == "version" {
				if hasEq {
					return Request{}, argErr(arg, "takes no value")
				}
				return Request{}, special(f)
			}
			switch {
			case f.value && hasEq:
				s.add(f, value, true)
			case f.value:
				s.add(f, "", false)
				pending = f
			case hasEq:
				return Request{}, argErr("--"+f.long, fmt.Sprintf("takes no value, but %q was given", value))
			default:
				s.add(f, "", false)
			}
		case strings.HasPrefix(arg, "-") && arg != "-":
			if pending != nil {
				return Request{}, missing(pending)
			}
			f := lookupShort(arg[1])
			if f == nil {
				return Request{}, argErr(arg[:2], "unknown flag (found argument '"+arg[:2]+"' which wasn't expected)")
			}
			if !f.value {
				return Request{}, special(f) // -h or -V: clap answers them at once
			}
			if rest := arg[2:]; rest != "" {
				s.add(f, strings.TrimPrefix(rest, "="), true)
			} else {
				s.add(f, "", false)
				pending = f
			}
		case pending != nil:
			s.values[pending.long] = append(s.values[pending.long], arg)
			pending = nil
		default:
			// The only positional takes the rest (trailing_var_arg).
			extra = append(extra, arg)
			trailing = true
		}
	}
	if pending != nil {
		return Request{}, missing(pending)
	}
	return s.request(extra)
}

func special(f *flagDef) error {
	if f.long == "help" {
		return ErrHelp
	}
	return ErrVersion
}

// request validates in clap's order (conflicts, required, each flag's
// values and occurrences, then the typed fields) and fills a Request.
func (s *seen) request(extra []string) (Request, error) {
	has := func(name string) bool { return s.count[name] > 0 }
	if has("compile") && has("run") {
		second := "--run"
		if slices.Index(s.order, "run") < slices.Index(s.order, "compile") {
			second = "--compile"
		}
		return Request{}, argErr(second, "--compile and --run cannot be used together")
	}
	if !has("homedir") {
		return Request{}, argErr("--homedir", "required flag not given")
	}
	if !has("compile") && !has("run") {
		return Request{}, argErr("--run", "one of --compile and --run is required")
	}
	if has("compile") && !has("compile-source") {
		return Request{}, argErr("--compile-source", "required by --compile but not given")
	}
	for _, name := range s.order {
		f := lookupLong(name)
		if s.count[name] > 1 && !f.multiple {
			return Request{}, argErr("--"+name, "given more than once, but cannot be used multiple times")
		}
		if f.enum && !slices.Contains(languages, s.values[name][0]) {
			return Request{}, argErr("--"+name, fmt.Sprintf("%q isn't a valid value; possible values: %s",
				s.values[name][0], strings.Join(languages, ", ")))
		}
	}
	r := Request{
		Root:                s.one("root", DefaultRoot),
		Homedir:             s.one("homedir", ""),
		HomedirWritable:     has("homedir-writable"),
		CompileSources:      s.values["compile-source"],
		CompileTarget:       s.one("compile-target", DefaultTarget),
		RunTarget:           s.one("run-target", DefaultTarget),
		Stdin:               s.one("stdin", ""),
		Stdout:              s.one("stdout", ""),
		Stderr:              s.one("stderr", ""),
		Meta:                s.one("meta", ""),
		ExtraWallTimeMs:     DefaultExtraWallTimeMs,
		CgroupPath:          s.one("cgroup-path", DefaultCgroupPath),
		DisableSandboxing:   has("disable-sandboxing"),
		AllowSigsysFallback: has("allow-sigsys-fallback"),
		ExtraArgs:           extra,
	}
	if has("compile") {
		r.Mode, r.Language = ModeCompile, s.one("compile", "")
	} else {
		r.Mode, r.Language = ModeRun, s.one("run", "")
	}
	var err error
	if r.TimeLimitMs, err = s.u64("time-limit"); err != nil {
		return Request{}, err
	}
	if w, err := s.u64("extra-wall-time-limit"); err != nil {
		return Request{}, err
	} else if w != nil {
		r.ExtraWallTimeMs = *w
	}
	if r.OutputLimit, err = s.u64("output-limit"); err != nil {
		return Request{}, err
	}
	if r.MemoryLimit, err = s.u64("memory-limit"); err != nil {
		return Request{}, err
	}
	for _, b := range s.values["bind"] {
		// omegajail splits on every ':' and wants two parts
		// (src/jail/options.rs), then drops the target's first byte.
		parts := strings.Split(b, ":")
		if len(parts) != 2 || parts[1] == "" {
			return Request{}, argErr("--bind", fmt.Sprintf("invalid bind description %q: want SOURCE:TARGET", b))
		}
		r.Binds = append(r.Binds, Bind{Source: parts[0], Target: parts[1]})
	}
	return r, nil
}

func (s *seen) one(name, def string) string {
	if v := s.values[name]; len(v) > 0 {
		return v[0]
	}
	return def
}

// u64 parses a flag's value as Rust's u64::from_str does: an optional
// "+", then decimal digits only.
func (s *seen) u64(name string) (*uint64, error) {
	v, ok := s.values[name]
	if !ok {
		return nil, nil
	}
	text := strings.TrimPrefix(v[0], "+")
	var n uint64
	bad := text == ""
	for i := 0; i < len(text) && !bad; i++ {
		c := text[i]
		if c < '0' || c > '9' || n > (^uint64(0)-uint64(c-'0'))/10 {
			bad = true
			break
		}
		n = n*10 + uint64(c-'0')
	}
	if bad {
		return nil, argErr("--"+name, fmt.Sprintf("invalid value %q: not an unsigned 64-bit number", v[0]))
	}
	return &n, nil
}
