package main

import (
	"path/filepath"
	"testing"

	"github.com/podjail/podjail/internal/hosttest"
	"github.com/podjail/podjail/plugin"
)

// controlBytesInteractor sends the solution, one byte at a time, each
// flushed and acknowledged ("ok") before the next, the bytes Podman's
// attach takes for its detach keys by default (ctrl-p, ctrl-q), twice;
// then it wants their sum. An interactor speaking a binary protocol sends
// such bytes; they must reach the program like any other.
const controlBytesInteractor = `#include <stdio.h>
#include <string.h>
int main(void) {
	const unsigned char send[] = {0x10, 0x11, 0x10, 0x11};
	char line[64];
	for (int i = 0; i < 4; i++) {
		putchar(send[i]);
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin) || strcmp(line, "ok\n") != 0) {
			fprintf(stderr, "wrong answer: no ok after byte %d\n", i + 1);
			return 1;
		}
	}
	if (!fgets(line, sizeof line, stdin) || strcmp(line, "sum 66\n") != 0) {
		fprintf(stderr, "wrong answer: want sum 66\n");
		return 1;
	}
	fprintf(stderr, "ok: the four bytes came through\n");
	return 0;
}
`

// controlBytesSolution reads the four bytes one read(2) at a time,
// acknowledging each, and answers their sum.
const controlBytesSolution = `#include <stdio.h>
#include <unistd.h>
int main(void) {
	int sum = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char b;
		if (read(0, &b, 1) != 1) return 2;
		sum += b;
		printf("ok\n");
		fflush(stdout);
	}
	printf("sum %d\n", sum);
	return 0;
}
`

// TestJudgeInteractiveControlBytes: an interactor's ctrl-p and ctrl-q,
// each sent alone, reach the solution. Through Podman's attach they did
// not: its server takes them for the detach keys, holds a lone ctrl-p
// back waiting for the next byte and ends the stream on ctrl-q, so the
// judge ended in a time limit, a wrong verdict.
func TestJudgeInteractiveControlBytes(t *testing.T) {
	env := hosttest.Podman(t)
	dir := writeProblemFiles(t, map[string]string{
		"problem.yaml":              "name: control bytes\ninteractive: true\ntime_limit: 2\ninteractor:\n  source: interactor/interactor.c\n  lang: c11\n",
		"interactor/interactor.c":   controlBytesInteractor,
		"tests/1.in":                "\n",
		"tests/1.ans":               "\n",
		"solutions/control_bytes.c": controlBytesSolution,
	})
	res, code := judgeJSON(t, env, dir, filepath.Join(dir, "solutions", "control_bytes.c"))
	if res.Verdict != plugin.AC || code != exitOK || len(res.Tests) != 1 {
		t.Fatalf("verdict %s (%s), exit %d, %d tests; want AC on 1 test: ctrl-p and ctrl-q reached the solution", res.Verdict, res.Note, code, len(res.Tests))
	}
}
