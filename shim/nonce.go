package shim

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// NonceEnv carries the per-run nonce. It is in the environment and never in argv
// because /proc/1/cmdline is world-readable and /proc/1/environ is not.
const NonceEnv = "PODJAIL_NONCE"

const maxNonceLen = 256

// TakeNonce reads the nonce and erases it: from the Go environment, and from the
// process's original environment block (what /proc/self/environ shows), which
// os.Unsetenv does not touch.
func TakeNonce() (string, error) {
	nonce, ok := os.LookupEnv(NonceEnv)
	os.Unsetenv(NonceEnv)
	err := scrubEnviron(NonceEnv)
	switch {
	case err != nil:
		return nonce, &SetupError{Step: StepNonce, Err: err}
	case !ok || nonce == "":
		return "", stepErr(StepNonce, "%s is not set", NonceEnv)
	case !validNonce(nonce):
		return "", stepErr(StepNonce, "%s must be 1-%d printable ASCII characters without spaces", NonceEnv, maxNonceLen)
	}
	return nonce, nil
}

func validNonce(s string) bool {
	if len(s) == 0 || len(s) > maxNonceLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// scrubEnviron overwrites with NULs every NAME=... entry of the initial environment
// block. The block's bounds are env_start and env_end of /proc/self/stat; it is
// written through /proc/self/mem, which needs no cgo and no unsafe pointers. It
// then checks /proc/self/environ.
func scrubEnviron(name string) error {
	start, end, err := envBounds()
	if err != nil {
		return err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		return fmt.Errorf("read environment block: %w", err)
	}
	prefix := []byte(name + "=")
	for off := 0; off < len(block); {
		n := bytes.IndexByte(block[off:], 0)
		if n < 0 {
			n = len(block) - off
		}
		if bytes.HasPrefix(block[off:off+n], prefix) {
			if _, err := mem.WriteAt(make([]byte, n), int64(start)+int64(off)); err != nil {
				return fmt.Errorf("overwrite environment block: %w", err)
			}
		}
		off += n + 1
	}
	env, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return err
	}
	for _, e := range bytes.Split(env, []byte{0}) {
		if bytes.HasPrefix(e, prefix) {
			return fmt.Errorf("%s still in /proc/self/environ after overwriting", name)
		}
	}
	return nil
}

// envBounds returns env_start and env_end, fields 50 and 51 of /proc/self/stat.
func envBounds() (start, end uint64, err error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	return parseEnvBounds(stat)
}

func parseEnvBounds(stat []byte) (start, end uint64, err error) {
	// comm (field 2) may hold spaces and parentheses: count from the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("malformed /proc/self/stat")
	}
	f := strings.Fields(string(stat[i+1:])) // f[0] is field 3
	const envStart, envEnd = 50, 51
	if len(f) < envEnd-2 {
		return 0, 0, fmt.Errorf("/proc/self/stat has %d fields, want %d", len(f)+2, envEnd)
	}
	start, err1 := strconv.ParseUint(f[envStart-3], 10, 64)
	end, err2 := strconv.ParseUint(f[envEnd-3], 10, 64)
	if err1 != nil || err2 != nil || start == 0 || end < start || end-start > 1<<24 {
		return 0, 0, fmt.Errorf("bad env_start/env_end %q %q in /proc/self/stat", f[envStart-3], f[envEnd-3])
	}
	return start, end, nil
}
