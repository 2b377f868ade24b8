package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
)

// TestExitCodesOneTable: README's table of exit codes says what main.go's
// package comment says, word for word, and the codes are main's.
func TestExitCodesOneTable(t *testing.T) {
	if hosttest.Required() {
		t.Skip("the sources are not in the test VM; this test runs with go test in the repository")
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	inMain, inReadme := mainExitCodes(string(src)), readmeExitCodes(string(readme))
	if len(inMain) == 0 || strings.Join(inMain, "\n") != strings.Join(inReadme, "\n") {
		t.Errorf("exit codes differ:\nmain.go:\n%s\nREADME.md:\n%s", strings.Join(inMain, "\n"), strings.Join(inReadme, "\n"))
	}
	var codes []string
	for _, r := range inMain {
		code, _, _ := strings.Cut(r, " ")
		codes = append(codes, code)
	}
	want := []string{strconv.Itoa(exitOK), strconv.Itoa(exitFailure), strconv.Itoa(exitUsage), strconv.Itoa(exitRejected), strconv.Itoa(exitSignal)}
	if !slices.Equal(codes, want) {
		t.Errorf("the table lists exit codes %v; main has %v", codes, want)
	}
}

// mainExitCodes are the rows of the package comment's table, "CODE text",
// continuation lines joined.
func mainExitCodes(src string) []string {
	row := regexp.MustCompile(`^//\t(\d+)\s+(.*)$`)
	more := regexp.MustCompile(`^//\t\s+(.*)$`)
	var rows []string
	for _, line := range strings.Split(src, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1]+" "+m[2])
		} else if m := more.FindStringSubmatch(line); m != nil && len(rows) > 0 {
			rows[len(rows)-1] += " " + m[1]
		} else if line == "package main" {
			break
		}
	}
	return rows
}

// readmeExitCodes are the rows of README's "| exit | meaning |" table.
func readmeExitCodes(readme string) []string {
	row := regexp.MustCompile(`^\| (\d+) \| (.*) \|$`)
	var rows []string
	_, table, _ := strings.Cut(readme, "| exit | meaning |\n")
	for _, line := range strings.Split(table, "\n")[1:] {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		rows = append(rows, m[1]+" "+m[2])
	}
	return rows
}
