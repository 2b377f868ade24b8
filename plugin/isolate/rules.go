package isolate

import (
	"fmt"
	"strings"
)

// DirFlags are a --dir rule's options, as bits in isolate's order.
type DirFlags uint

// Directory rule options (rules.c dir_flag_names). The zero value is a
// read-only, restricted (no devices, no setuid) recursive bind.
const (
	DirRW     DirFlags = 1 << iota // rw: read-write
	DirNoExec                      // noexec: no execution of binaries
	DirFS                          // fs: mount the filesystem named by the outside part
	DirMaybe                       // maybe: skip the rule if the outside does not exist
	DirDev                         // dev: allow devices
	DirTmp                         // tmp: a fresh temporary directory (implies rw)
	DirNoRec                       // norec: not recursive
)

var dirFlagNames = []string{"rw", "noexec", "fs", "maybe", "dev", "tmp", "norec"}

// Has reports whether every flag of f2 is in f.
func (f DirFlags) Has(f2 DirFlags) bool { return f&f2 == f2 }

// String lists the options as isolate spells them, colon-separated.
func (f DirFlags) String() string {
	var names []string
	for i, n := range dirFlagNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ":")
}

// DirRule is one --dir rule after isolate's parsing (rules.c).
type DirRule struct {
	// Inside is the path inside the sandbox, without leading slashes
	// ("etc"); never empty nor with a ".." component.
	Inside string
	// Outside is what gets mounted there: a host path ("/etc", or "//etc"
	// for "-d /etc" as isolate builds it), a path relative to the box
	// directory for DirTmp ("./tmp/:dev:shm"), or a filesystem name for
	// DirFS ("proc"). Empty when Remove is set.
	Outside string
	// Flags are the rule's options; DirTmp always comes with DirRW.
	Flags DirFlags
	// Remove is "in=": the rule deletes an earlier one for Inside
	// (default rules included). Zero value: a mount.
	Remove bool
}

// addDir applies one --dir argument to rules the way set_dir_action does:
// options after the first colon, "in=out" or "in" alone, and a rule for
// an Inside already present replacing it in place.
func addDir(rules []DirRule, arg string) ([]DirRule, error) {
	bad := func(why string) error {
		return usage(fmt.Sprintf("Invalid directory rule '%s': %s\n", arg, why))
	}
	spec, opts, hasOpts := strings.Cut(arg, ":")
	var flags DirFlags
	if hasOpts {
		for _, opt := range strings.Split(opts, ":") {
			i := indexOf(dirFlagNames, opt)
			if i < 0 {
				return nil, bad(fmt.Sprintf("Unknown option '%s'", opt))
			}
			flags |= 1 << i
		}
	}
	in, out, hasEq := strings.Cut(spec, "=")
	r := DirRule{Flags: flags}
	switch {
	case flags.Has(DirFS) && flags.Has(DirTmp):
		return nil, bad("Flags 'fs' and 'tmp' are mutually exclusive")
	case flags.Has(DirFS):
		if !hasEq {
			return nil, bad("Missing filesystem name")
		}
		if indexOf([]string{"proc", "sysfs", "tmpfs", "devpts"}, out) < 0 {
			return nil, bad("This filesystem is not supported")
		}
		r.Outside = out
	case flags.Has(DirTmp):
		if hasEq {
			return nil, bad("Temporary directory mounts do not have a right-hand side")
		}
		// A flat name under the box's tmp/: slashes become colons.
		r.Outside = "./tmp/" + strings.ReplaceAll(in, "/", ":")
		r.Flags |= DirRW
	case hasEq && out == "":
		r.Remove = true
	case hasEq:
		if !strings.HasPrefix(out, "/") && !strings.HasPrefix(out, "./") {
			return nil, bad("Right-hand side must start with '/' or './'")
		}
		r.Outside = out
	default:
		r.Outside = "/" + in
	}
	r.Inside = strings.TrimLeft(in, "/")
	if r.Inside == "" || indexOf(strings.Split(r.Inside, "/"), "..") >= 0 {
		return nil, bad("Invalid path")
	}
	for i := range rules {
		if rules[i].Inside == r.Inside {
			rules[i] = r
			return rules, nil
		}
	}
	return append(rules, r), nil
}

// EnvRule is one --env rule: inherit Name from the caller, or set it to
// Value, or (Set with an empty Value) remove it.
type EnvRule struct {
	Name  string // the variable; never empty
	Value string // its value when Set
	Set   bool   // "NAME=VALUE" (or "NAME=": unset); zero value: "NAME", inherit
}

// parseEnv is set_env_action: "NAME" or "NAME=VALUE"; "=..." is invalid.
func parseEnv(arg string) (EnvRule, error) {
	name, value, set := strings.Cut(arg, "=")
	if set && name == "" {
		return EnvRule{}, usage(fmt.Sprintf("Invalid environment specified: %s\n", arg))
	}
	return EnvRule{Name: name, Value: value, Set: set}, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// ProgramEnv is what isolate gives the program from the caller's
// environment environ (os.Environ()): with fullEnv all of it, else nothing
// but what the rules pass on; then each rule in order, "NAME=VALUE" setting,
// "NAME=" removing, "NAME" inheriting the caller's value if it has one.
// (The sandbox's own base, PATH and HOME, is podjail's business.)
func ProgramEnv(rules []EnvRule, fullEnv bool, environ []string) []string {
	var names []string
	vals := map[string]string{}
	set := func(name, value string) {
		if _, ok := vals[name]; !ok {
			names = append(names, name)
		}
		vals[name] = value
	}
	caller := map[string]string{}
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			caller[name] = value
			if fullEnv {
				set(name, value)
			}
		}
	}
	for _, r := range rules {
		switch v, ok := caller[r.Name]; {
		case r.Set && r.Value != "":
			set(r.Name, r.Value)
		case r.Set:
			delete(vals, r.Name)
		case ok:
			set(r.Name, v)
		}
	}
	var env []string
	for _, n := range names {
		if v, ok := vals[n]; ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}
