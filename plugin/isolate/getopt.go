package isolate

import (
	"fmt"
	"strings"
)

// argKind is getopt_long's has_arg.
type argKind int

const (
	noArg argKind = iota
	requiredArg
	optionalArg
)

// longOption is one entry of a struct option table.
type longOption struct {
	name string
	has  argKind
	code int // the short letter, or an opt* code above 255
}

// option is one option getopt returned: its code and optarg.
type option struct {
	code   int
	arg    string
	hasArg bool // optarg != NULL
	name   string
}

// getopt walks args (argv without argv[0]) as glibc's getopt_long does
// with the default permuting order: options may come anywhere, "--" ends
// them, "-" and every other word are operands, returned in order. A long
// option may be abbreviated to any unambiguous prefix; a required
// argument is "--name=value", "--name value", "-xvalue" or "-x value"
// (the next word is taken whatever it looks like); an optional one only
// "--name=value" or "-xvalue". Short options cluster ("-se"). Each option
// goes to visit as it is found, so isolate's own checks interleave with
// getopt's; the first error stops the walk. getopt's own errors carry
// glibc's message and Help set, as isolate then prints its usage.
func getopt(args []string, shorts string, longs []longOption, visit func(option) error) ([]string, error) {
	var operands []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return append(operands, args[i+1:]...), nil
		case strings.HasPrefix(arg, "--"):
			o, used, err := longOpt(arg[2:], args[i+1:], longs)
			if err != nil {
				return nil, err
			}
			i += used
			if err := visit(o); err != nil {
				return nil, err
			}
		case strings.HasPrefix(arg, "-") && arg != "-":
			for j := 1; j < len(arg); j++ {
				c := arg[j]
				k := strings.IndexByte(shorts, c)
				if k < 0 || c == ':' || c == ';' {
					return nil, getoptErr(fmt.Sprintf("invalid option -- '%c'", c))
				}
				kind := noArg
				if k+1 < len(shorts) && shorts[k+1] == ':' {
					kind = requiredArg
					if k+2 < len(shorts) && shorts[k+2] == ':' {
						kind = optionalArg
					}
				}
				o := option{code: int(c), name: "-" + string(c)}
				rest := arg[j+1:]
				switch {
				case kind == noArg:
				case rest != "":
					o.arg, o.hasArg = rest, true
				case kind == requiredArg && i+1 < len(args):
					i++
					o.arg, o.hasArg = args[i], true
				case kind == requiredArg:
					return nil, getoptErr(fmt.Sprintf("option requires an argument -- '%c'", c))
				}
				if err := visit(o); err != nil {
					return nil, err
				}
				if kind != noArg {
					break // the rest of the word was the argument
				}
			}
		default:
			operands = append(operands, arg)
		}
	}
	return operands, nil
}

// longOpt resolves "name[=value]" against the table: an exact name wins,
// else a unique prefix. next are the words after it, for a required
// argument; used says how many of them it took.
func longOpt(text string, next []string, longs []longOption) (option, int, error) {
	name, value, hasEq := strings.Cut(text, "=")
	var found *longOption
	var matches []*longOption
	for i := range longs {
		if longs[i].name == name {
			found = &longs[i]
			break
		}
		if strings.HasPrefix(longs[i].name, name) {
			matches = append(matches, &longs[i])
		}
	}
	if found == nil {
		switch len(matches) {
		case 0:
			return option{}, 0, getoptErr(fmt.Sprintf("unrecognized option '--%s'", text))
		case 1:
			found = matches[0]
		default:
			msg := fmt.Sprintf("option '--%s' is ambiguous; possibilities:", text)
			for _, m := range matches {
				msg += " '--" + m.name + "'"
			}
			return option{}, 0, getoptErr(msg)
		}
	}
	o := option{code: found.code, name: "--" + found.name}
	switch {
	case found.has == noArg && hasEq:
		return option{}, 0, getoptErr(fmt.Sprintf("option '--%s' doesn't allow an argument", found.name))
	case found.has == noArg:
	case hasEq:
		o.arg, o.hasArg = value, true
	case found.has == requiredArg && len(next) > 0:
		o.arg, o.hasArg = next[0], true
		return o, 1, nil
	case found.has == requiredArg:
		return option{}, 0, getoptErr(fmt.Sprintf("option '--%s' requires an argument", found.name))
	}
	return o, 0, nil
}
