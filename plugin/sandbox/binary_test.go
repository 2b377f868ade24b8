package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
)

// The podjail-plugin binary, built once for the tests below.
var (
	pluginOnce sync.Once
	pluginBin  string
	pluginErr  error
	pluginDir  string
)

func buildPlugin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/podjail-plugin; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build cmd/podjail-plugin")
	}
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "podjail-plugin-test-")
		if pluginErr != nil {
			return
		}
		pluginBin = filepath.Join(pluginDir, "podjail-plugin")
		cmd := exec.Command("go", "build", "-tags=remote,containers_image_openpgp", "-o", pluginBin, "github.com/podjail/podjail/cmd/podjail-plugin")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = errors.New("go build ./cmd/podjail-plugin: " + err.Error() + "\n" + string(out))
		}
	})
	if pluginErr != nil {
		t.Fatal(pluginErr)
	}
	return pluginBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		_ = os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

func TestPluginBinaryRefusesToRunByHand(t *testing.T) {
	bin := buildPlugin(t)
	cmd := exec.Command(bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, Handshake.MagicCookieKey+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("run without the magic cookie: %v, want a non-zero exit", err)
	}
	if !strings.Contains(stderr.String(), "This binary is a plugin") {
		t.Errorf("stderr %q lacks go-plugin's refusal", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("the plugin wrote to stdout: %q", stdout.String())
	}
}

// Without Podman, the real binary still starts, shakes hands, and answers
// every call with ErrUnavailable; its log reaches the host's logger, and
// its directory goes when it is killed.
func TestOpenRealPluginWithoutPodman(t *testing.T) {
	bin := buildPlugin(t)
	tmp := t.TempDir()
	socket := "unix://" + filepath.Join(tmp, "no-podman.sock")
	var logBuf syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Name: "host", Output: &logBuf, Level: hclog.Debug})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "--url", socket, "--shim", "none", "--tmp", tmp)
	sb, kill, err := OpenCommand(ctx, cmd, logger)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sb.Capabilities(ctx)
	checkKind(t, "Capabilities", err, ErrUnavailable, codes.Unavailable, "no-podman.sock")
	_, err = sb.Compile(ctx, "c11", []byte("int main(){}"))
	checkKind(t, "Compile", err, ErrUnavailable, codes.Unavailable, "no-podman.sock")
	_, err = sb.Judge(ctx, JudgeRequest{ProblemDir: tmp, Language: "c11", Source: []byte("x")}, nil)
	checkKind(t, "Judge", err, ErrUnavailable, codes.Unavailable, "no-podman.sock")
	// 8 MiB of input: over gRPC's default 4 MiB, so this reaches the
	// handle check only if both sides raised the limit to MaxMessage.
	_, err = sb.Run(ctx, RunRequest{Handle: "h-none", Input: make([]byte, 8<<20)})
	checkKind(t, "Run", err, ErrInvalidArgument, codes.InvalidArgument, "h-none")
	kill()

	if log := logBuf.String(); !strings.Contains(log, "capabilities failed") || !strings.Contains(log, "podjail-plugin") {
		t.Errorf("the plugin's log did not reach the host's logger:\n%s", log)
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "podjail-plugin-*"))
	if len(left) != 0 {
		t.Errorf("the plugin left %v", left)
	}
}

func TestOpenMissingBinary(t *testing.T) {
	_, _, err := Open(context.Background(), filepath.Join(t.TempDir(), "absent"), hclog.NewNullLogger())
	if !errors.Is(err, ErrFailedPrecondition) {
		t.Errorf("Open of a missing binary: %v, want ErrFailedPrecondition", err)
	}
}

// A judge importing this package must not link Podman's bindings (they
// need build tags and pull in hundreds of packages).
func TestClientPackageStaysLight(t *testing.T) {
	buildPlugin(t) // the same skips
	out, err := exec.Command("go", "list", "-deps", "github.com/podjail/podjail/plugin/sandbox").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/containers/") || dep == "github.com/podjail/podjail/bindings" || dep == "github.com/podjail/podjail/plugin" {
			t.Errorf("plugin/sandbox depends on %s", dep)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
