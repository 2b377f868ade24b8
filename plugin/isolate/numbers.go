package isolate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// cSpace is what C's isspace skips before a number.
const cSpace = " \t\n\v\f\r"

// optUint is isolate's opt_uint: strtoul in base 10 (leading blanks and a
// sign allowed, nothing after the digits), then at most INT_MAX. A
// negative number wraps to a huge one, so it is out of range.
func optUint(val string) (int, error) {
	s := strings.TrimLeft(val, cSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 0 || end != len(s) {
		return 0, usage(fmt.Sprintf("Invalid numeric parameter: %s\n", val))
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil { // ERANGE
		return 0, usage(fmt.Sprintf("Invalid numeric parameter: %s\n", val))
	}
	if (neg && n != 0) || n > math.MaxInt32 {
		return 0, usage(fmt.Sprintf("Numeric parameter out of range: %s\n", val))
	}
	return int(n), nil
}

// seconds is isolate's 1000*atof(val) stored in an int of milliseconds:
// the longest decimal prefix counts (leading blanks skipped, "1.5s" is
// 1.5, "abc" is 0) and the product is truncated toward zero. atof's hex
// floats, inf and nan are read as 0 here; a result outside int's range,
// undefined in C, is an error.
func seconds(val string) (time.Duration, error) {
	s := strings.TrimLeft(val, cSpace)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0, nil
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for i = j; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			}
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	ms := math.Trunc(1000 * f)
	if err != nil || ms > math.MaxInt32 || ms < math.MinInt32 {
		return 0, usage(fmt.Sprintf("Numeric parameter out of range: %s\n", val))
	}
	return time.Duration(ms) * time.Millisecond, nil
}
