package omegajail

import (
	"fmt"
	"slices"
	"strings"
)

// flagHelp is each flag's help in omegajail's own words (the doc comments
// of src/args.rs, clap's for -h and -V), with its default as clap shows
// it, then what podjail's front does differently.
var flagHelp = map[string]string{
	"root":                  "Root of the omegajail runtime [default: .] (podjail: ignored)",
	"compile":               "Run omegajail in compilation mode for the specified language",
	"compile-source":        "Add the file to the compilation",
	"compile-target":        "Target of the compilation [default: Main]",
	"run":                   "Run omegajail in run mode for the specified language",
	"run-target":            "Set the target name to execute [default: Main]",
	"homedir":               "Specifies |path| to be mounted as /home and chdir'ed to.",
	"homedir-writable":      "Specifies that /home will be mounted read-write (podjail: ignored)",
	"stdin":                 "Redirects stdin",
	"stdout":                "Redirects stdout",
	"stderr":                "Redirects stderr",
	"meta":                  "Writes a .meta file",
	"time-limit":            "Sets the time limit",
	"extra-wall-time-limit": "Sets the time limit [default: 1000] (the wall limit is -t plus this)",
	"output-limit":          "Sets the output limit",
	"memory-limit":          "Sets the memory limit",
	"cgroup-path":           "The cgroup hierarchy in which processes will be placed [default: " + DefaultCgroupPath + "] (podjail: ignored)",
	"disable-sandboxing":    "Completely disable containerization. This is very insecure and should only be used when omegajail is already being run in a container (podjail: ignored, every run is in a container)",
	"bind":                  "Additional bind-mounts",
	"allow-sigsys-fallback": "Allows downgrading to the SIGSYS-based seccomp filter that doesn't provide correct SYSCALL information always (podjail: ignored)",
	"help":                  "Print help information",
	"version":               "Print version information",
}

// Usage is what `omegajail --help` prints: clap's help for omegajail's
// flags, in clap 3's layout (options sorted by name), each in omegajail's
// words, and what podjail does with them (docs/omegajail.md).
func Usage() string {
	var b strings.Builder
	b.WriteString(`omegajail, as podjail's omegajail front: each compile and run in a fresh Podman container (docs/omegajail.md)

USAGE:
    omegajail [OPTIONS] --homedir <PATH> <--compile <LANGUAGE>|--run <LANGUAGE>> [EXTRA_ARGS]...

ARGS:
    <EXTRA_ARGS>...    Any additional arguments to the executable

OPTIONS:
`)
	sorted := slices.Clone(flags)
	slices.SortFunc(sorted, func(a, b flagDef) int { return strings.Compare(a.long, b.long) })
	width := 0
	for _, f := range sorted {
		width = max(width, len(f.synopsis()))
	}
	for _, f := range sorted {
		fmt.Fprintf(&b, "    %-*s    %s\n", width, f.synopsis(), f.help())
	}
	fmt.Fprintf(&b, "\npodjail runs %s; it refuses the other languages.\n", strings.Join(supported(), ", "))
	return b.String()
}

// synopsis is the flag as clap's help shows it: "-0, --stdin <PATH>".
func (f flagDef) synopsis() string {
	s := "    --" + f.long
	if f.short != 0 {
		s = "-" + string(f.short) + ", --" + f.long
	}
	if f.value {
		s += " " + f.display
	}
	if f.multiple {
		s += "..."
	}
	return s
}

func (f flagDef) help() string {
	h := flagHelp[f.long]
	if f.enum {
		h += " [possible values: " + strings.Join(languages, ", ") + "]"
	}
	return h
}

// supported are the languages LanguageID maps, in omegajail's order.
func supported() []string {
	var out []string
	for _, l := range languages {
		if _, err := LanguageID(l); err == nil {
			out = append(out, l)
		}
	}
	return out
}
