package plugin

import (
	"strconv"
	"strings"
)

// firstLine is s's first non-empty line, at most 200 bytes.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "..."
			}
			return line
		}
	}
	return ""
}

// pointsIn finds testlib's "points X" in a checker's message.
func pointsIn(s string) (float64, bool) {
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "points" {
			if v, err := strconv.ParseFloat(f[i+1], 64); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}
